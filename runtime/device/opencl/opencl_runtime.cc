#include "runtime/device/opencl/opencl_runtime.h"

#include "absl/strings/str_cat.h"
#include "runtime/device/opencl/opencl_device.h"

namespace kiln::runtime::opencl {
namespace {

absl::Status ClError(const char* what, cl_int err) {
  return absl::InternalError(absl::StrCat("OpenCL: ", what, " failed (error ", err, ")"));
}

cl_mem Mem(const void* p) { return static_cast<cl_mem>(const_cast<void*>(p)); }


class OpenCLModule final : public DeviceModule {
 public:
  OpenCLModule(std::vector<DeviceKernelInfo> kernels, std::unique_ptr<OpenCLProgram> program)
      : DeviceModule(std::move(kernels)), program_(std::move(program)) {}

 protected:
  absl::Status LaunchKernel(const DeviceKernelInfo& kernel, absl::Span<const KilnAny> params,
                            const LaunchDims& dims) const override {
    std::vector<KernelArg> args;
    args.reserve(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      if (kernel.params[i].code == kDLOpaqueHandle) {
        args.push_back(KernelArg::Of(Mem(params[i].type_index == kKilnNone ? nullptr : params[i].v_ptr)));
        continue;
      }
      absl::StatusOr<KernelArg> a = ScalarKernelArg(kernel.params[i], params[i], "OpenCL");
      if (!a.ok()) return a.status();
      args.push_back(*a);
    }
    std::array<size_t, 3> grid, block;
    for (int d = 0; d < 3; ++d) {
      grid[d] = static_cast<size_t>(dims.grid[d]);
      block[d] = static_cast<size_t>(dims.block[d]);
    }
    return program_->Launch(kernel.name, args, grid, block);
  }

 private:
  std::unique_ptr<OpenCLProgram> program_;
};

// Two profiled markers: the device time between their completions.
class OpenCLTimer final : public DeviceTimer {
 public:
  OpenCLTimer(const OpenCLDevice* device, cl_event start) : device_(device), start_(start) {}
  ~OpenCLTimer() override { clReleaseEvent(start_); }
  absl::StatusOr<int64_t> StopAndWait() override {
    absl::StatusOr<cl_event> stop = device_->Marker();
    if (!stop.ok()) return stop.status();
    absl::StatusOr<uint64_t> t1 = device_->EndTimeNs(*stop);
    clReleaseEvent(*stop);
    if (!t1.ok()) return t1.status();
    absl::StatusOr<uint64_t> t0 = device_->EndTimeNs(start_);
    if (!t0.ok()) return t0.status();
    return static_cast<int64_t>(*t1 - *t0);
  }

 private:
  const OpenCLDevice* device_;
  cl_event start_;
};

class OpenCLRuntime final : public DeviceRuntime, public DeviceAPI {
 public:
  explicit OpenCLRuntime(std::unique_ptr<OpenCLDevice> device) : device_(std::move(device)) {}

  // DeviceRuntime.
  DLDeviceType device_type() const override { return kDLOpenCL; }
  const std::string& description() const override { return device_->description(); }
  DeviceAPI* api() override { return this; }
  absl::StatusOr<std::unique_ptr<DeviceModule>> Load(const DeviceBlob& blob) override {
    if (blob.format != "opencl") {
      return absl::InvalidArgumentError(absl::StrCat("OpenCL loads \"opencl\" blobs, not \"", blob.format, "\""));
    }
    absl::StatusOr<std::unique_ptr<OpenCLProgram>> program = device_->Build(blob.code);
    if (!program.ok()) return program.status();
    return std::unique_ptr<DeviceModule>(new OpenCLModule(blob.kernels, *std::move(program)));
  }

  // DeviceAPI. OpenCL buffers are aligned to the device's base address alignment (>= 128 bytes
  // on every conforming device), which satisfies any `alignment` kiln asks for.
  absl::StatusOr<void*> AllocDataSpace(size_t nbytes, size_t /*alignment*/) override {
    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(device_->context(), CL_MEM_READ_WRITE, nbytes == 0 ? 1 : nbytes, nullptr, &err);
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
        err == CL_INVALID_BUFFER_SIZE) {
      return absl::ResourceExhaustedError(absl::StrCat("OpenCL: cannot allocate ", nbytes, " bytes (error ", err, ")"));
    }
    if (err != CL_SUCCESS) return ClError("clCreateBuffer", err);
    return static_cast<void*>(mem);
  }
  void FreeDataSpace(void* ptr) override {
    if (ptr != nullptr) clReleaseMemObject(Mem(ptr));
  }
  absl::Status CopyFromHost(void* dev, size_t dev_offset, const void* host, size_t nbytes) override {
    if (nbytes == 0) return absl::OkStatus();
    cl_int err = clEnqueueWriteBuffer(device_->queue(), Mem(dev), CL_TRUE, dev_offset, nbytes, host, 0, nullptr, nullptr);
    return err == CL_SUCCESS ? absl::OkStatus() : ClError("clEnqueueWriteBuffer", err);
  }
  absl::Status CopyToHost(void* host, const void* dev, size_t dev_offset, size_t nbytes) override {
    if (nbytes == 0) return absl::OkStatus();
    cl_int err = clEnqueueReadBuffer(device_->queue(), Mem(dev), CL_TRUE, dev_offset, nbytes, host, 0, nullptr, nullptr);
    return err == CL_SUCCESS ? absl::OkStatus() : ClError("clEnqueueReadBuffer", err);
  }
  absl::Status CopyWithinDevice(void* dst, size_t dst_offset, const void* src, size_t src_offset,
                                size_t nbytes) override {
    if (nbytes == 0) return absl::OkStatus();
    cl_int err = clEnqueueCopyBuffer(device_->queue(), Mem(src), Mem(dst), src_offset, dst_offset, nbytes, 0, nullptr,
                                     nullptr);
    if (err != CL_SUCCESS) return ClError("clEnqueueCopyBuffer", err);
    return Synchronize();
  }
  absl::Status Zero(void* dev, size_t dev_offset, size_t nbytes) override {
    if (nbytes == 0) return absl::OkStatus();
    const uint8_t zero = 0;
    cl_int err = clEnqueueFillBuffer(device_->queue(), Mem(dev), &zero, 1, dev_offset, nbytes, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) return ClError("clEnqueueFillBuffer", err);
    return Synchronize();
  }
  absl::Status Synchronize() override { return device_->Finish(); }
  absl::StatusOr<std::unique_ptr<DeviceTimer>> StartTimer() override {
    absl::StatusOr<cl_event> start = device_->Marker();
    if (!start.ok()) return start.status();
    return std::unique_ptr<DeviceTimer>(new OpenCLTimer(device_.get(), *start));
  }

 private:
  std::unique_ptr<OpenCLDevice> device_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DeviceRuntime>> OpenOpenCLRuntime() {
  absl::StatusOr<std::unique_ptr<OpenCLDevice>> device = OpenCLDevice::Open();
  if (!device.ok()) return device.status();
  return std::unique_ptr<DeviceRuntime>(new OpenCLRuntime(*std::move(device)));
}

}  // namespace kiln::runtime::opencl
