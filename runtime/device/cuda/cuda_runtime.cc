#include "runtime/device/cuda/cuda_runtime.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/device/cuda/cuda_device.h"

namespace kiln::runtime::cuda {
namespace {

uint64_t Ptr(const void* p) { return reinterpret_cast<uint64_t>(p); }


class CUDAKernelModule final : public DeviceModule {
 public:
  CUDAKernelModule(std::vector<DeviceKernelInfo> kernels, std::unique_ptr<CUDAModule> module)
      : DeviceModule(std::move(kernels)), module_(std::move(module)) {}

 protected:
  bool GivesDynamicSharedMemory() const override { return true; }
  absl::Status LaunchKernel(const DeviceKernelInfo& kernel, absl::Span<const KilnAny> params,
                            const LaunchDims& dims) const override {
    std::vector<KernelArg> args;
    args.reserve(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      if (kernel.params[i].code == kDLOpaqueHandle) {
        args.push_back(KernelArg::Of(params[i].type_index == kKilnNone ? uint64_t{0} : Ptr(params[i].v_ptr)));
        continue;
      }
      absl::StatusOr<KernelArg> a = ScalarKernelArg(kernel.params[i], params[i], "CUDA");
      if (!a.ok()) return a.status();
      args.push_back(*a);
    }
    std::array<uint32_t, 3> grid, block;
    for (int d = 0; d < 3; ++d) {
      if (dims.grid[d] > std::numeric_limits<uint32_t>::max() || dims.block[d] > 1024) {
        return absl::InvalidArgumentError(absl::StrCat("CUDA: launch of ", kernel.name, " with grid/block extent ",
                                                       dims.grid[d], "/", dims.block[d], " out of range"));
      }
      grid[d] = static_cast<uint32_t>(dims.grid[d]);
      block[d] = static_cast<uint32_t>(dims.block[d]);
    }
    if (dims.dynamic_shared_bytes > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(absl::StrCat("CUDA: launch of ", kernel.name, " with ",
                                                     dims.dynamic_shared_bytes, " bytes of dynamic shared memory"));
    }
    return module_->Launch(kernel.name, args, grid, block, static_cast<uint32_t>(dims.dynamic_shared_bytes));
  }

 private:
  std::unique_ptr<CUDAModule> module_;
};

// Two CUDA events on the default stream.
class CUDATimer final : public DeviceTimer {
 public:
  CUDATimer(const CUDADevice* device, std::array<void*, 2> events) : device_(device), events_(events) {}
  ~CUDATimer() override {
    if (!stopped_) (void)device_->RecordStopAndWait(events_);  // destroys the events
  }
  absl::StatusOr<int64_t> StopAndWait() override {
    if (stopped_) return absl::FailedPreconditionError("CUDA timer: StopAndWait called twice");
    stopped_ = true;
    absl::StatusOr<double> ms = device_->RecordStopAndWait(events_);
    if (!ms.ok()) return ms.status();
    return static_cast<int64_t>(*ms * 1e6);
  }

 private:
  const CUDADevice* device_;
  std::array<void*, 2> events_;
  bool stopped_ = false;
};

class CUDARuntime final : public DeviceRuntime, public DeviceAPI {
 public:
  explicit CUDARuntime(std::unique_ptr<CUDADevice> device) : device_(std::move(device)) {}

  // DeviceRuntime.
  DLDeviceType device_type() const override { return kDLCUDA; }
  const std::string& description() const override { return device_->description(); }
  DeviceAPI* api() override { return this; }
  absl::StatusOr<std::unique_ptr<DeviceModule>> Load(const DeviceBlob& blob) override {
    if (blob.format != "ptx" && blob.format != "cubin") {
      return absl::InvalidArgumentError(absl::StrCat("CUDA loads \"ptx\" or \"cubin\" blobs, not \"", blob.format, "\""));
    }
    absl::StatusOr<std::unique_ptr<CUDAModule>> module = device_->LoadModule(blob.code);
    if (!module.ok()) return module.status();
    return std::unique_ptr<DeviceModule>(new CUDAKernelModule(blob.kernels, *std::move(module)));
  }

  // DeviceAPI. cuMemAlloc returns 256-byte aligned memory, which satisfies any `alignment` kiln
  // asks for.
  absl::StatusOr<void*> AllocDataSpace(size_t nbytes, size_t /*alignment*/) override {
    absl::StatusOr<uint64_t> p = device_->AllocRaw(nbytes);
    if (!p.ok()) return p.status();
    return reinterpret_cast<void*>(*p);
  }
  void FreeDataSpace(void* ptr) override { device_->FreeRaw(Ptr(ptr)); }
  absl::Status CopyFromHost(void* dev, size_t dev_offset, const void* host, size_t nbytes) override {
    return device_->CopyToDevice(Ptr(dev) + dev_offset, host, nbytes);
  }
  absl::Status CopyToHost(void* host, const void* dev, size_t dev_offset, size_t nbytes) override {
    return device_->CopyToHost(host, Ptr(dev) + dev_offset, nbytes);
  }
  absl::Status CopyWithinDevice(void* dst, size_t dst_offset, const void* src, size_t src_offset,
                                size_t nbytes) override {
    return device_->CopyWithinDevice(Ptr(dst) + dst_offset, Ptr(src) + src_offset, nbytes);
  }
  absl::Status Zero(void* dev, size_t dev_offset, size_t nbytes) override {
    return device_->Zero(Ptr(dev) + dev_offset, nbytes);
  }
  absl::Status Synchronize() override { return device_->Synchronize(); }
  absl::StatusOr<std::unique_ptr<DeviceTimer>> StartTimer() override {
    absl::StatusOr<std::array<void*, 2>> events = device_->RecordStart();
    if (!events.ok()) return events.status();
    return std::unique_ptr<DeviceTimer>(new CUDATimer(device_.get(), *events));
  }

 private:
  std::unique_ptr<CUDADevice> device_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DeviceRuntime>> OpenCUDARuntime() {
  absl::StatusOr<std::unique_ptr<CUDADevice>> device = CUDADevice::Open();
  if (!device.ok()) return device.status();
  return std::unique_ptr<DeviceRuntime>(new CUDARuntime(*std::move(device)));
}

}  // namespace kiln::runtime::cuda
