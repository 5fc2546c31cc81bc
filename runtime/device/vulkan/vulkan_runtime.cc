#include "runtime/device/vulkan/vulkan_runtime.h"

#include <atomic>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "runtime/device/vulkan/vulkan_abi.h"
#include "runtime/device/vulkan/vulkan_device.h"

namespace kiln::runtime::vulkan {
namespace {

// Device pointers. A Vulkan buffer has no address, yet host code and the VM treat device pointers
// as addresses: they may pass `data + byte_offset` for a tensor placed inside a larger storage.
// So each allocation gets a range of a made-up address space (never dereferenced; far from any
// host mapping, 256-byte aligned, ranges separated by a gap), and a pointer anywhere inside a
// range resolves to (buffer, offset). A pointer in no range is an error, not a crash.
class AddressSpace {
 public:
  void* Add(std::unique_ptr<VulkanBuffer> buffer) {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t base = next_;
    next_ += (std::max<uint64_t>(buffer->bytes(), 1) + 2 * kAlign - 1) / kAlign * kAlign;
    ranges_.emplace(base, std::move(buffer));
    return reinterpret_cast<void*>(base);
  }
  void Remove(void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    ranges_.erase(reinterpret_cast<uint64_t>(p));
  }
  absl::StatusOr<BoundBuffer> Resolve(const void* p) const {
    uint64_t a = reinterpret_cast<uint64_t>(p);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = ranges_.upper_bound(a);
    if (it != ranges_.begin()) {
      --it;
      if (a - it->first <= it->second->bytes()) return BoundBuffer{it->second.get(), a - it->first};
    }
    return absl::InvalidArgumentError(absl::StrCat("Vulkan: 0x", absl::Hex(a), " is not a pointer into a Vulkan allocation"));
  }

 private:
  static constexpr uint64_t kAlign = 256;
  mutable std::mutex mu_;
  uint64_t next_ = uint64_t{1} << 44;
  std::map<uint64_t, std::unique_ptr<VulkanBuffer>> ranges_;  // by base address
};

class VulkanModule final : public DeviceModule {
 public:
  struct Kernel {
    ArgLayout layout;
    std::unique_ptr<VulkanKernel> kernel;
  };
  VulkanModule(std::vector<DeviceKernelInfo> infos, std::vector<Kernel> kernels, const AddressSpace* memory,
               std::atomic<uint64_t>* busy_ns)
      : DeviceModule(std::move(infos)), kernels_(std::move(kernels)), memory_(memory), busy_ns_(busy_ns) {}

 protected:
  absl::Status LaunchKernel(const DeviceKernelInfo& info, absl::Span<const KilnAny> params,
                            const LaunchDims& dims) const override {
    const Kernel& k = kernels_[static_cast<size_t>(&info - kernels().data())];
    std::vector<BoundBuffer> buffers;
    for (size_t i = 0; i < params.size(); ++i) {
      if (info.params[i].code != kDLOpaqueHandle) continue;
      absl::StatusOr<BoundBuffer> b = memory_->Resolve(params[i].type_index == kKilnNone ? nullptr : params[i].v_ptr);
      if (!b.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("argument #", i, " of ", info.name, ": ", b.status().message()));
      }
      buffers.push_back(*b);
    }
    std::array<uint32_t, 3> grid, block;
    for (int d = 0; d < 3; ++d) {
      if (dims.grid[d] > int64_t{UINT32_MAX} || dims.block[d] > int64_t{UINT32_MAX}) {
        return absl::InvalidArgumentError(absl::StrCat("Vulkan: launch of ", info.name, " with ", dims.grid[d],
                                                       " blocks of ", dims.block[d], " threads"));
      }
      grid[d] = static_cast<uint32_t>(dims.grid[d]);
      block[d] = static_cast<uint32_t>(dims.block[d]);
    }
    uint64_t ns = 0;
    absl::Status st = k.kernel->Launch(buffers, PackPushConstants(info.params, k.layout, params.data()), grid, block, &ns);
    busy_ns_->fetch_add(ns);
    return st;
  }

 private:
  std::vector<Kernel> kernels_;  // parallel to kernels()
  const AddressSpace* memory_;    // the runtime's, which outlives its modules
  std::atomic<uint64_t>* busy_ns_;  // the runtime's device-time counter
};

// Each dispatch waits for its own fence and is timed by two timestamp queries around it, so the
// device time between two points is the sum of the dispatches' times in between.
class VulkanTimer final : public DeviceTimer {
 public:
  explicit VulkanTimer(const std::atomic<uint64_t>* busy_ns) : busy_ns_(busy_ns), start_(busy_ns->load()) {}
  absl::StatusOr<int64_t> StopAndWait() override { return static_cast<int64_t>(busy_ns_->load() - start_); }

 private:
  const std::atomic<uint64_t>* busy_ns_;
  uint64_t start_;
};

class VulkanRuntime final : public DeviceRuntime, public DeviceAPI {
 public:
  explicit VulkanRuntime(std::unique_ptr<VulkanDevice> device) : device_(std::move(device)) {}

  // DeviceRuntime.
  DLDeviceType device_type() const override { return kDLVulkan; }
  const std::string& description() const override { return device_->description(); }
  DeviceAPI* api() override { return this; }
  absl::StatusOr<std::unique_ptr<DeviceModule>> Load(const DeviceBlob& blob) override {
    if (blob.format != "spirv") {
      return absl::InvalidArgumentError(absl::StrCat("Vulkan loads \"spirv\" blobs, not \"", blob.format, "\""));
    }
    absl::StatusOr<std::vector<std::vector<uint32_t>>> modules = UnpackModules(blob.code);
    if (!modules.ok()) return modules.status();
    if (modules->size() != blob.kernels.size()) {
      return absl::InvalidArgumentError(absl::StrCat("spirv blob: ", modules->size(), " modules for ",
                                                     blob.kernels.size(), " kernels"));
    }
    std::vector<VulkanModule::Kernel> kernels;
    for (size_t i = 0; i < blob.kernels.size(); ++i) {
      const DeviceKernelInfo& info = blob.kernels[i];
      absl::StatusOr<ArgLayout> layout = ArgLayoutOf(info.params);
      if (!layout.ok()) return layout.status();
      absl::StatusOr<std::unique_ptr<VulkanKernel>> k = device_->CreateKernel(
          {info.name, std::move((*modules)[i]), layout->num_buffers, layout->push_constant_bytes});
      if (!k.ok()) return k.status();
      kernels.push_back({*std::move(layout), *std::move(k)});
    }
    return std::unique_ptr<DeviceModule>(new VulkanModule(blob.kernels, std::move(kernels), &memory_, &busy_ns_));
  }

  // DeviceAPI. Pointers are AddressSpace addresses, 256-byte aligned, so any `alignment` holds.
  absl::StatusOr<void*> AllocDataSpace(size_t nbytes, size_t /*alignment*/) override {
    absl::StatusOr<VulkanBuffer> b = device_->Alloc(nbytes);
    if (!b.ok()) return b.status();
    return memory_.Add(std::make_unique<VulkanBuffer>(*std::move(b)));
  }
  void FreeDataSpace(void* ptr) override { memory_.Remove(ptr); }
  absl::Status CopyFromHost(void* dev, size_t dev_offset, const void* host, size_t nbytes) override {
    absl::StatusOr<BoundBuffer> b = memory_.Resolve(dev);
    if (!b.ok()) return b.status();
    return device_->Write(*b->buffer, b->offset + dev_offset, host, nbytes);
  }
  absl::Status CopyToHost(void* host, const void* dev, size_t dev_offset, size_t nbytes) override {
    absl::StatusOr<BoundBuffer> b = memory_.Resolve(dev);
    if (!b.ok()) return b.status();
    return device_->Read(host, *b->buffer, b->offset + dev_offset, nbytes);
  }
  absl::Status CopyWithinDevice(void* dst, size_t dst_offset, const void* src, size_t src_offset,
                                size_t nbytes) override {
    absl::StatusOr<BoundBuffer> d = memory_.Resolve(dst), s = memory_.Resolve(src);
    if (!d.ok()) return d.status();
    if (!s.ok()) return s.status();
    return device_->Copy(*d->buffer, d->offset + dst_offset, *s->buffer, s->offset + src_offset, nbytes);
  }
  absl::Status Zero(void* dev, size_t dev_offset, size_t nbytes) override {
    absl::StatusOr<BoundBuffer> b = memory_.Resolve(dev);
    if (!b.ok()) return b.status();
    return device_->Zero(*b->buffer, b->offset + dev_offset, nbytes);
  }
  // Every launch has finished when it returns.
  absl::Status Synchronize() override { return absl::OkStatus(); }
  absl::StatusOr<std::unique_ptr<DeviceTimer>> StartTimer() override {
    if (!device_->has_timestamps()) {
      return absl::UnimplementedError(absl::StrCat(device_->description(), ": the compute queue has no timestamps"));
    }
    return std::unique_ptr<DeviceTimer>(new VulkanTimer(&busy_ns_));
  }

 private:
  std::unique_ptr<VulkanDevice> device_;
  AddressSpace memory_;  // destroyed (buffers freed) before the device
  std::atomic<uint64_t> busy_ns_{0};  // device time of every dispatch so far (VulkanTimer)
};

}  // namespace

absl::StatusOr<std::unique_ptr<DeviceRuntime>> OpenVulkanRuntime() {
  absl::StatusOr<std::unique_ptr<VulkanDevice>> device = VulkanDevice::Open();
  if (!device.ok()) return device.status();
  return std::unique_ptr<DeviceRuntime>(new VulkanRuntime(*std::move(device)));
}

}  // namespace kiln::runtime::vulkan
