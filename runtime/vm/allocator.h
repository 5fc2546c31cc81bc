// Device memory for the VM: Storage blocks (what vm.builtin.alloc_storage returns and
// vm.builtin.alloc_tensor carves tensors from) and the allocators that hand them out, one per
// device, as TVM's memory manager does:
//   naive  (AllocatorKind::kNaive = 1): every request goes to the device, every release frees;
//   pooled (AllocatorKind::kPooled = 2, the default): sizes round up to a page, released blocks go
//          to a free list per rounded size and serve later requests of that size, across
//          invocations, until Clear() (vm.builtin.memory_manager.clear) hands them back.
// A Storage stays valid while any handle to it, or any tensor carved from it, lives, even after its
// allocator is gone. Allocators are thread-safe (a tensor may be released on any thread).
#ifndef KILN_RUNTIME_VM_ALLOCATOR_H_
#define KILN_RUNTIME_VM_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include "absl/status/statusor.h"
#include "runtime/tensor.h"

namespace kiln::vm {

enum class AllocatorKind : int { kNaive = 1, kPooled = 2 };

class Storage : public std::enable_shared_from_this<Storage> {
 public:
  virtual ~Storage() = default;
  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  DLDevice device() const { return device_; }
  const std::string& scope() const { return scope_; }

  // A compact tensor of `shape` and `dtype` starting `offset` bytes into this storage; it keeps the
  // storage alive. INVALID_ARGUMENT when it does not fit (or the offset is negative).
  absl::StatusOr<runtime::Tensor> AllocTensor(int64_t offset, const std::vector<int64_t>& shape,
                                              DLDataType dtype) const;

 protected:
  Storage(void* data, size_t nbytes, DLDevice device, std::string scope)
      : data_(data), nbytes_(nbytes), device_(device), scope_(std::move(scope)) {}

 private:
  void* data_;
  size_t nbytes_;
  DLDevice device_;
  std::string scope_;
};

struct AllocatorStats {
  int64_t device_allocs = 0;   // requests that reached the device
  int64_t reused = 0;          // requests served from a free list (pooled only)
  int64_t bytes_cached = 0;    // bytes sitting in free lists now
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // UNIMPLEMENTED for a device without a DeviceAPI.
  static absl::StatusOr<std::unique_ptr<Allocator>> Create(AllocatorKind kind, DLDevice device);

  // `nbytes` bytes aligned to `alignment` (a power of two, at most the page size) in `scope`
  // ("global" or empty; other scopes are UNIMPLEMENTED on the CPU).
  virtual absl::StatusOr<std::shared_ptr<const Storage>> Alloc(size_t nbytes, size_t alignment,
                                                               const std::string& scope) = 0;
  // Frees cached blocks (pooled); storages still in use are unaffected.
  virtual void Clear() = 0;
  virtual AllocatorStats stats() const = 0;
  virtual AllocatorKind kind() const = 0;
  virtual DLDevice device() const = 0;
};

}  // namespace kiln::vm

#endif  // KILN_RUNTIME_VM_ALLOCATOR_H_
