// OpenCL device runtime: runs OpenCL C kernels through the ICD loader (libOpenCL), on whatever
// platform is installed (PoCL on CPU-only machines). It links the loader only and never a compiler:
// programs are built from source at load time by the platform's own compiler, and a failed build
// is returned with the platform's build log.
//
// No platform or no device is UNAVAILABLE ("device unavailable: ..."), never a crash, so callers
// and tests can tell "this machine has no OpenCL" from a real failure.
//
// Thread safety: an OpenCLDevice and its programs may be used from several threads. Each launch
// creates its own cl_kernel (clSetKernelArg on a shared kernel object would race) and the command
// queue is in order, so launches, copies and Finish happen in the order they were issued.
#ifndef KILN_RUNTIME_DEVICE_OPENCL_OPENCL_DEVICE_H_
#define KILN_RUNTIME_DEVICE_OPENCL_OPENCL_DEVICE_H_

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/device/kernel_arg.h"

namespace kiln::runtime::opencl {

// A device allocation; released when destroyed.
class OpenCLBuffer {
 public:
  OpenCLBuffer() = default;
  OpenCLBuffer(cl_mem mem, size_t bytes) : mem_(mem), bytes_(bytes) {}
  OpenCLBuffer(OpenCLBuffer&& other) noexcept : mem_(other.mem_), bytes_(other.bytes_) { other.mem_ = nullptr; }
  OpenCLBuffer& operator=(OpenCLBuffer&& other) noexcept;
  OpenCLBuffer(const OpenCLBuffer&) = delete;
  OpenCLBuffer& operator=(const OpenCLBuffer&) = delete;
  ~OpenCLBuffer();

  cl_mem mem() const { return mem_; }
  size_t bytes() const { return bytes_; }

 private:
  cl_mem mem_ = nullptr;
  size_t bytes_ = 0;
};

// Kernel arguments are runtime::KernelArg (kernel_arg.h): a buffer is KernelArg::Of(buffer.mem()).
using runtime::KernelArg;

// A program built for one device; kernels are launched by name.
class OpenCLProgram {
 public:
  ~OpenCLProgram();
  OpenCLProgram(const OpenCLProgram&) = delete;
  OpenCLProgram& operator=(const OpenCLProgram&) = delete;

  // Enqueues `kernel` over `grid` work-groups of `block` work-items each (NDRange global size =
  // grid * block per dimension). INVALID_ARGUMENT for an unknown kernel or a bad argument list,
  // INTERNAL for what the platform refuses (with its error code).
  absl::Status Launch(const std::string& kernel, const std::vector<KernelArg>& args, std::array<size_t, 3> grid,
                      std::array<size_t, 3> block) const;

 private:
  friend class OpenCLDevice;
  OpenCLProgram(cl_program program, cl_command_queue queue) : program_(program), queue_(queue) {}
  cl_program program_;
  cl_command_queue queue_;  // borrowed from the device
};

class OpenCLDevice {
 public:
  // The first device of the first platform that has one. UNAVAILABLE when there is none.
  static absl::StatusOr<std::unique_ptr<OpenCLDevice>> Open();
  ~OpenCLDevice();
  OpenCLDevice(const OpenCLDevice&) = delete;
  OpenCLDevice& operator=(const OpenCLDevice&) = delete;

  // "<platform> / <device>", for messages and logs.
  const std::string& description() const { return description_; }

  // Builds OpenCL C `source` with `options`. INVALID_ARGUMENT with the build log when the
  // platform's compiler rejects it.
  absl::StatusOr<std::unique_ptr<OpenCLProgram>> Build(const std::string& source,
                                                       const std::string& options = "") const;

  // A buffer of `bytes` bytes (at least one byte is allocated: OpenCL refuses empty buffers).
  absl::StatusOr<OpenCLBuffer> Alloc(size_t bytes) const;
  // Blocking copies between host memory and a buffer.
  absl::Status Write(const OpenCLBuffer& dst, const void* src, size_t bytes) const;
  absl::Status Read(void* dst, const OpenCLBuffer& src, size_t bytes) const;
  // Waits for everything enqueued so far.
  absl::Status Finish() const;
  // A marker on the queue: it completes once everything enqueued before it has finished. The
  // caller releases it (clReleaseEvent).
  absl::StatusOr<cl_event> Marker() const;
  // The device's time, in nanoseconds, at which `event` finished (its CL_PROFILING_COMMAND_END;
  // the queue profiles every command); waits for it.
  absl::StatusOr<uint64_t> EndTimeNs(cl_event event) const;

  // For the DeviceRuntime (opencl_runtime.h), which manages raw cl_mem handles.
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }

 private:
  OpenCLDevice() = default;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::string description_;
};

}  // namespace kiln::runtime::opencl

#endif  // KILN_RUNTIME_DEVICE_OPENCL_OPENCL_DEVICE_H_
