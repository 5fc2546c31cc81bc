// CUDA device runtime: the CUDA driver API, loaded at run time with dlopen("libcuda.so.1"), so
// nothing kiln ships links against the driver and every binary starts on machines without one.
// Modules are loaded from PTX (JIT-compiled by the driver for the device) or from a cubin.
//
// No driver library, the toolkit's stub driver (CUDA_ERROR_STUB_LIBRARY), no device
// (CUDA_ERROR_NO_DEVICE) or an ordinal past the last device: Open() returns UNAVAILABLE
// ("device unavailable: ..."), never a crash, so callers and tests can tell "no GPU here" from a
// real failure. Other driver errors are INTERNAL with the driver's error name.
//
// Thread safety: a CUDADevice, its modules and buffers may be used from several threads. Every
// call makes the device's primary context current on the calling thread first. Launches and
// copies go to the context's default (legacy) stream, so they run in the order they were issued.
#ifndef KILN_RUNTIME_DEVICE_CUDA_CUDA_DEVICE_H_
#define KILN_RUNTIME_DEVICE_CUDA_CUDA_DEVICE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/device/kernel_arg.h"

namespace kiln::runtime::cuda {

struct Driver;  // the dlopen'ed entry points (cuda_device.cc)

// A device allocation (a CUdeviceptr); freed when destroyed.
class CUDABuffer {
 public:
  CUDABuffer() = default;
  CUDABuffer(CUDABuffer&& other) noexcept { *this = std::move(other); }
  CUDABuffer& operator=(CUDABuffer&& other) noexcept;
  CUDABuffer(const CUDABuffer&) = delete;
  CUDABuffer& operator=(const CUDABuffer&) = delete;
  ~CUDABuffer();

  uint64_t ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  friend class CUDADevice;
  void Release();
  std::shared_ptr<const Driver> driver_;
  void* context_ = nullptr;
  uint64_t ptr_ = 0;
  size_t bytes_ = 0;
};

// Kernel arguments are runtime::KernelArg (kernel_arg.h): a buffer is KernelArg::Of(buffer.ptr()).
using runtime::KernelArg;

// A loaded module (PTX or cubin); kernels are launched by name.
class CUDAModule {
 public:
  ~CUDAModule();
  CUDAModule(const CUDAModule&) = delete;
  CUDAModule& operator=(const CUDAModule&) = delete;

  // Launches `kernel` over `grid` blocks of `block` threads with `shared_bytes` of dynamic shared
  // memory. NOT_FOUND for an unknown kernel, INTERNAL with the driver's error otherwise. Returns
  // once the launch is queued (Synchronize waits for it).
  absl::Status Launch(const std::string& kernel, const std::vector<KernelArg>& args, std::array<uint32_t, 3> grid,
                      std::array<uint32_t, 3> block, uint32_t shared_bytes = 0) const;

 private:
  friend class CUDADevice;
  CUDAModule(std::shared_ptr<const Driver> driver, void* context, void* module)
      : driver_(std::move(driver)), context_(context), module_(module) {}
  std::shared_ptr<const Driver> driver_;
  void* context_;
  void* module_;
};

struct CUDAOpenOptions {
  int ordinal = 0;                        // which device
  std::string library = "libcuda.so.1";   // the driver library to dlopen
};

class CUDADevice {
 public:
  // Opens device `options.ordinal`. UNAVAILABLE ("device unavailable: ...") as described above.
  static absl::StatusOr<std::unique_ptr<CUDADevice>> Open(const CUDAOpenOptions& options = {});
  ~CUDADevice();
  CUDADevice(const CUDADevice&) = delete;
  CUDADevice& operator=(const CUDADevice&) = delete;

  // "<name> (sm_XY)", for messages and logs.
  const std::string& description() const { return description_; }
  // The compute capability, e.g. 90 for sm_90.
  int compute_capability() const { return compute_capability_; }

  // Loads a PTX (text) or cubin (ELF) image. INVALID_ARGUMENT with the driver's JIT log when the
  // driver rejects it.
  absl::StatusOr<std::unique_ptr<CUDAModule>> LoadModule(const std::string& image) const;

  // `bytes` of device memory (at least one byte is allocated). RESOURCE_EXHAUSTED when out of memory.
  absl::StatusOr<CUDABuffer> Alloc(size_t bytes) const;
  // Blocking copies between host memory and a buffer.
  absl::Status CopyToDevice(const CUDABuffer& dst, const void* src, size_t bytes) const;
  absl::Status CopyToHost(void* dst, const CUDABuffer& src, size_t bytes) const;

  // The same on raw device pointers (CUdeviceptr values), for owners that manage lifetimes
  // themselves (the DeviceAPI of cuda_runtime.h). Copies and Zero are blocking.
  absl::StatusOr<uint64_t> AllocRaw(size_t bytes) const;
  void FreeRaw(uint64_t ptr) const;
  absl::Status CopyToDevice(uint64_t dst, const void* src, size_t bytes) const;
  absl::Status CopyToHost(void* dst, uint64_t src, size_t bytes) const;
  absl::Status CopyWithinDevice(uint64_t dst, uint64_t src, size_t bytes) const;
  absl::Status Zero(uint64_t dst, size_t bytes) const;
  // Waits for everything issued so far.
  absl::Status Synchronize() const;

  // Device-side timing with CUDA events: runs `work` between two events on the default stream and
  // returns the milliseconds the device measured (what time_evaluator reports for GPU targets).
  template <typename Work>
  absl::StatusOr<double> TimeMs(Work work) const {
    absl::StatusOr<std::array<void*, 2>> events = RecordStart();
    if (!events.ok()) return events.status();
    absl::Status st = work();
    absl::StatusOr<double> ms = RecordStopAndWait(*events);
    if (!st.ok()) return st;
    return ms;
  }

  // TimeMs in two halves (for the runtime's DeviceTimer): two events, the first recorded on the
  // default stream; then the second recorded, waited for, the milliseconds between them, and both
  // destroyed.
  absl::StatusOr<std::array<void*, 2>> RecordStart() const;
  absl::StatusOr<double> RecordStopAndWait(std::array<void*, 2> events) const;

 private:
  CUDADevice() = default;
  std::shared_ptr<const Driver> driver_;
  int device_ = 0;
  void* context_ = nullptr;
  int compute_capability_ = 0;
  std::string description_;
};

}  // namespace kiln::runtime::cuda

#endif  // KILN_RUNTIME_DEVICE_CUDA_CUDA_DEVICE_H_
