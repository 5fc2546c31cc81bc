// The interface every GPU device runtime implements (OpenCL now; Vulkan, CUDA, ROCm next), and the
// device blob the compiler hands it: the shared GPU architecture of kiln.
//
//   compiler (SplitHostDevice + a device backend)  -->  DeviceBlob {format, code, kernel table}
//   executable library section                      -->  one blob per device target (kind "device")
//   runtime: GetDeviceRuntime(type)->Load(blob)     -->  DeviceModule
//   host code (compiled, or the interpreter)        -->  DeviceModule::Launch(name, args)
//   tensors                                         -->  device memory through the DeviceAPI
//
// Launch convention (what SplitHostDevice's host code passes to T.call_packed, and what compiled
// host code passes to KilnKernelEnv::device_launch, runtime/kernel_abi.h): the kernel's params in
// order (a buffer as its device data pointer, type kKilnOpaquePtr; a scalar as kKilnInt, kKilnBool
// or kKilnFloat), then one kKilnInt extent per entry of the kernel's launch_params. Launch params
// are thread tags: "blockIdx.{x,y,z}" give the grid (work-groups), "threadIdx.{x,y,z}" the block
// (work-items per group); a dimension not listed is 1. "tir.use_dyn_shared_memory" (last, where
// present) gives the bytes of dynamic shared memory each block gets (CUDA only).
//
// Thread safety: a DeviceRuntime and the modules it loads may be used from any thread; launches
// and copies on one device run in the order they were issued (in-order queue/stream).
#ifndef KILN_RUNTIME_DEVICE_DEVICE_MODULE_H_
#define KILN_RUNTIME_DEVICE_DEVICE_MODULE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "runtime/device/device_api.h"
#include "runtime/kernel_abi.h"

namespace kiln::runtime {

// The dtype of a buffer parameter in a kernel table: the buffer's data handle.
inline constexpr DLDataType kDeviceHandleType = {kDLOpaqueHandle, 64, 1};

struct DeviceKernelInfo {
  std::string name;                        // the kernel's symbol in the device code
  std::vector<DLDataType> params;          // kDeviceHandleType for a buffer, else the scalar's type
  std::vector<std::string> launch_params;  // thread tags whose extents follow the params
};

// What a device backend produces and an executable carries: code in one format plus its kernel
// table. Formats: "opencl" (OpenCL C source), "spirv" (SPIR-V module), "ptx", "cubin", "hsaco".
//
// Serialized layout (little-endian; str = u64 length + bytes; vec = u64 count + elements):
//   u64 magic kDeviceBlobMagic ("KILNDEV1") | str format | str code
//   | vec<kernel: str name | vec<param: u8 code | u8 bits | u16 lanes> | vec<str launch_param>>
// Deserialize checks every count against the bytes left and every launch param's spelling.
struct DeviceBlob {
  std::string format;
  std::string code;
  std::vector<DeviceKernelInfo> kernels;

  std::string Serialize() const;
  static absl::StatusOr<DeviceBlob> Deserialize(absl::string_view bytes);
};
inline constexpr uint64_t kDeviceBlobMagic = 0x315645444E4C494BULL;  // "KILNDEV1" little-endian

// The device type whose runtime loads blobs of `format` (kDLOpenCL for "opencl", kDLVulkan for
// "spirv", kDLCUDA for "ptx"/"cubin", kDLROCM for "hsaco"). INVALID_ARGUMENT for an unknown one.
absl::StatusOr<DLDeviceType> DeviceTypeOfFormat(absl::string_view format);

// Grid and block extents of one launch.
struct LaunchDims {
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  int64_t dynamic_shared_bytes = 0;
};

// The kernels of one blob, loaded (built, for source formats) on one device.
class DeviceModule {
 public:
  explicit DeviceModule(std::vector<DeviceKernelInfo> kernels) : kernels_(std::move(kernels)) {}
  virtual ~DeviceModule() = default;
  DeviceModule(const DeviceModule&) = delete;
  DeviceModule& operator=(const DeviceModule&) = delete;

  const std::vector<DeviceKernelInfo>& kernels() const { return kernels_; }
  // nullptr when the module has no such kernel.
  const DeviceKernelInfo* FindKernel(absl::string_view name) const;

  // Launches `name` with args in the launch convention above (params, then launch extents).
  // Checks the count and each argument's kind against the kernel table and that extents are
  // non-negative (INVALID_ARGUMENT naming the kernel and argument; NOT_FOUND for an unknown kernel),
  // then enqueues it. Asynchronous: copies to the host and Synchronize() wait for it. A launch
  // that asks for dynamic shared memory on a module without it is UNIMPLEMENTED.
  absl::Status Launch(absl::string_view name, const KilnAny* args, int32_t num_args) const;

 protected:
  // Whether launches may ask for dynamic shared memory (LaunchDims::dynamic_shared_bytes).
  virtual bool GivesDynamicSharedMemory() const { return false; }
  // The device-specific enqueue; `params` are checked against `kernel.params`, and every extent of
  // `dims` is positive (launches with an empty grid or block are skipped before this).
  virtual absl::Status LaunchKernel(const DeviceKernelInfo& kernel, absl::Span<const KilnAny> params,
                                    const LaunchDims& dims) const = 0;

 private:
  std::vector<DeviceKernelInfo> kernels_;
};

// One device type's runtime: its device (device_id 0 today), its memory, its module loader.
// One device-side time measurement (TVM's device timers behind time_evaluator): made by
// DeviceRuntime::StartTimer, which marks the device's queue; StopAndWait marks it again, waits for
// that mark and returns the nanoseconds the device measured between the two marks (CUDA events,
// OpenCL profiling events on markers, Vulkan timestamp queries around each dispatch). Single use.
class DeviceTimer {
 public:
  virtual ~DeviceTimer() = default;
  virtual absl::StatusOr<int64_t> StopAndWait() = 0;
};

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;
  virtual DLDeviceType device_type() const = 0;
  // "<platform> / <device>" or similar, for messages and logs.
  virtual const std::string& description() const = 0;
  // Memory on the device (the same object GetDeviceAPI returns for it).
  virtual DeviceAPI* api() = 0;
  // Loads `blob` onto the device. INVALID_ARGUMENT for a format this runtime does not take, or
  // code the device's compiler or loader rejects (with its log).
  virtual absl::StatusOr<std::unique_ptr<DeviceModule>> Load(const DeviceBlob& blob) = 0;
  // A timer started now (see DeviceTimer). UNIMPLEMENTED when the device cannot time itself (a
  // Vulkan queue without timestamps): the caller then times on the host around Synchronize.
  virtual absl::StatusOr<std::unique_ptr<DeviceTimer>> StartTimer() = 0;
};

// The runtime for `type`, opened on first use and kept for the life of the process (the registry
// is built once and is safe from any thread). UNAVAILABLE ("device unavailable: ...") when the
// machine lacks the driver or platform, or the device has none; UNIMPLEMENTED for device types
// kiln has no runtime for. A failed open is remembered: the machine does not change under us.
absl::StatusOr<DeviceRuntime*> GetDeviceRuntime(DLDeviceType type);

// The device a blob of `format` runs on (device_id 0), or the error GetDeviceRuntime gives.
absl::StatusOr<DLDevice> DeviceForFormat(absl::string_view format);

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_DEVICE_DEVICE_MODULE_H_
