#include "runtime/vm/allocator.h"

#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "runtime/device/device_api.h"

namespace kiln::vm {
namespace {

constexpr size_t kPageSize = 4096;

// Frees its block through the DeviceAPI when the last handle goes.
class NaiveStorage : public Storage {
 public:
  NaiveStorage(runtime::DeviceAPI* api, void* data, size_t nbytes, DLDevice device, std::string scope)
      : Storage(data, nbytes, device, std::move(scope)), api_(api) {}
  ~NaiveStorage() override { api_->FreeDataSpace(data()); }

 private:
  runtime::DeviceAPI* api_;
};

class NaiveAllocator : public Allocator {
 public:
  NaiveAllocator(runtime::DeviceAPI* api, DLDevice device) : api_(api), device_(device) {}

  absl::StatusOr<std::shared_ptr<const Storage>> Alloc(size_t nbytes, size_t alignment,
                                                       const std::string& scope) override {
    absl::StatusOr<void*> p = api_->AllocDataSpace(nbytes, std::max(alignment, runtime::kAllocAlignment));
    if (!p.ok()) return p.status();
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.device_allocs;
    return std::make_shared<NaiveStorage>(api_, *p, nbytes, device_, scope);
  }
  void Clear() override {}
  AllocatorStats stats() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }
  AllocatorKind kind() const override { return AllocatorKind::kNaive; }
  DLDevice device() const override { return device_; }

 private:
  runtime::DeviceAPI* api_;
  DLDevice device_;
  mutable std::mutex mu_;
  AllocatorStats stats_;
};

// The pool's free lists. Shared by the allocator and every block it handed out, so a block released
// after the allocator is gone still has somewhere to go (and is freed with the pool).
class Pool {
 public:
  explicit Pool(runtime::DeviceAPI* api) : api_(api) {}
  ~Pool() { Clear(); }

  // A cached block of exactly `rounded` bytes, or nullptr.
  void* Take(size_t rounded) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(rounded);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    stats_.bytes_cached -= rounded;
    ++stats_.reused;
    return p;
  }
  void Give(void* p, size_t rounded) {
    std::lock_guard<std::mutex> lock(mu_);
    free_[rounded].push_back(p);
    stats_.bytes_cached += rounded;
  }
  void CountDeviceAlloc() {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.device_allocs;
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [size, blocks] : free_) {
      for (void* p : blocks) api_->FreeDataSpace(p);
    }
    free_.clear();
    stats_.bytes_cached = 0;
  }
  AllocatorStats stats() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }
  runtime::DeviceAPI* api() const { return api_; }

 private:
  runtime::DeviceAPI* api_;
  mutable std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;
  AllocatorStats stats_;
};

class PooledStorage : public Storage {
 public:
  PooledStorage(std::shared_ptr<Pool> pool, void* data, size_t nbytes, size_t rounded, DLDevice device,
                std::string scope)
      : Storage(data, nbytes, device, std::move(scope)), pool_(std::move(pool)), rounded_(rounded) {}
  ~PooledStorage() override { pool_->Give(data(), rounded_); }

 private:
  std::shared_ptr<Pool> pool_;
  size_t rounded_;
};

class PooledAllocator : public Allocator {
 public:
  PooledAllocator(runtime::DeviceAPI* api, DLDevice device) : pool_(std::make_shared<Pool>(api)), device_(device) {}

  absl::StatusOr<std::shared_ptr<const Storage>> Alloc(size_t nbytes, size_t alignment,
                                                       const std::string& scope) override {
    if (alignment > kPageSize) {
      return absl::InvalidArgumentError(absl::StrCat("alignment ", alignment, " exceeds the page size"));
    }
    if (nbytes > SIZE_MAX - kPageSize) return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", nbytes, " bytes"));
    size_t rounded = (std::max<size_t>(nbytes, 1) + kPageSize - 1) / kPageSize * kPageSize;
    void* p = pool_->Take(rounded);
    if (p == nullptr) {
      absl::StatusOr<void*> fresh = pool_->api()->AllocDataSpace(rounded, kPageSize);
      if (!fresh.ok()) {
        // Out of memory with blocks cached: free them and try once more, as TVM's pool does.
        pool_->Clear();
        fresh = pool_->api()->AllocDataSpace(rounded, kPageSize);
        if (!fresh.ok()) return fresh.status();
      }
      pool_->CountDeviceAlloc();
      p = *fresh;
    }
    return std::make_shared<PooledStorage>(pool_, p, nbytes, rounded, device_, scope);
  }
  void Clear() override { pool_->Clear(); }
  AllocatorStats stats() const override { return pool_->stats(); }
  AllocatorKind kind() const override { return AllocatorKind::kPooled; }
  DLDevice device() const override { return device_; }

 private:
  std::shared_ptr<Pool> pool_;
  DLDevice device_;
};

}  // namespace

absl::StatusOr<runtime::Tensor> Storage::AllocTensor(int64_t offset, const std::vector<int64_t>& shape,
                                                     DLDataType dtype) const {
  // The product of the non-zero dims must fit too: an empty tensor's strides are still computed.
  int64_t nonzero_product = 1;
  bool has_zero = false;
  for (int64_t d : shape) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("alloc_tensor: negative dimension ", d));
    if (d == 0) {
      has_zero = true;
      continue;
    }
    if (nonzero_product > INT64_MAX / d) return absl::InvalidArgumentError("alloc_tensor: size overflows");
    nonzero_product *= d;
  }
  int64_t numel = has_zero ? 0 : nonzero_product;
  int64_t elem = runtime::DTypeBytes(dtype);
  if (elem <= 0 || numel > INT64_MAX / elem) return absl::InvalidArgumentError("alloc_tensor: bad dtype or size");
  int64_t need = numel * elem;
  if (offset < 0 || static_cast<uint64_t>(offset) > nbytes_ || static_cast<uint64_t>(need) > nbytes_ - offset) {
    return absl::InvalidArgumentError(absl::StrCat("alloc_tensor: ", need, " bytes at offset ", offset,
                                                   " do not fit in a storage of ", nbytes_, " bytes"));
  }
  // A DLManagedTensor over the storage's memory whose deleter drops a handle on the storage.
  struct Holder {
    std::shared_ptr<const Storage> storage;
    std::vector<int64_t> shape;
    DLManagedTensor managed;
  };
  auto* h = new Holder{shared_from_this(), shape, {}};
  DLTensor& t = h->managed.dl_tensor;
  // A GPU pointer is an opaque handle (a cl_mem, ...): the offset goes to byte_offset there.
  bool host = device_.device_type == kDLCPU;
  t.data = host ? static_cast<char*>(data_) + offset : data_;
  t.device = device_;
  t.ndim = static_cast<int>(shape.size());
  t.dtype = dtype;
  t.shape = h->shape.data();
  t.strides = nullptr;
  t.byte_offset = host ? 0 : static_cast<uint64_t>(offset);
  h->managed.manager_ctx = h;
  h->managed.deleter = [](DLManagedTensor* m) { delete static_cast<Holder*>(m->manager_ctx); };
  return runtime::Tensor::FromDLPack(&h->managed);
}

absl::StatusOr<std::unique_ptr<Allocator>> Allocator::Create(AllocatorKind kind, DLDevice device) {
  absl::StatusOr<runtime::DeviceAPI*> api = runtime::GetDeviceAPI(device);
  if (!api.ok()) return api.status();
  switch (kind) {
    case AllocatorKind::kNaive: return std::unique_ptr<Allocator>(new NaiveAllocator(*api, device));
    case AllocatorKind::kPooled: return std::unique_ptr<Allocator>(new PooledAllocator(*api, device));
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown allocator kind ", static_cast<int>(kind)));
}

}  // namespace kiln::vm
