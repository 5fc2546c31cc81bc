// The per-device memory services the runtime needs, behind one small interface so that tensors,
// the VM and the agent allocate and copy the same way on every device. The CPU implements it in
// cpu_device_api.cc; each GPU runtime (runtime/device/opencl, vulkan, cuda) implements it for its
// device and is reached through the registry (device_registry.h).
//
// A device pointer is whatever the device's AllocDataSpace returned (a cl_mem for OpenCL, a
// CUdeviceptr for CUDA, ...): opaque to everyone but that device, never dereferenced on the host.
// Offsets into it are in bytes and passed separately, so that devices whose handles are not
// addresses (OpenCL, Vulkan) work the same way as those whose handles are.
#ifndef KILN_RUNTIME_DEVICE_DEVICE_API_H_
#define KILN_RUNTIME_DEVICE_DEVICE_API_H_

#include <cstddef>

#include <dlpack/dlpack.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kiln::runtime {

// Kernels and SIMD code want data aligned to a cache line (64 bytes covers AVX-512 and every
// kiln target); numpy hands out 16-byte aligned arrays, which the kernel ABI also accepts.
inline constexpr size_t kAllocAlignment = 64;

class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  // `nbytes` bytes aligned to `alignment` (a power of two). A zero-byte request still returns a
  // distinct non-null pointer, so an empty tensor has a valid data pointer. RESOURCE_EXHAUSTED when
  // the device is out of memory.
  virtual absl::StatusOr<void*> AllocDataSpace(size_t nbytes, size_t alignment) = 0;
  virtual void FreeDataSpace(void* ptr) = 0;

  // Blocking copies between host memory and device memory (`dev` + `dev_offset` bytes), and
  // within the device. When they return, the data is where it was sent and every kernel launched
  // on the device before them has finished with it (in-order queues).
  virtual absl::Status CopyFromHost(void* dev, size_t dev_offset, const void* host, size_t nbytes) = 0;
  virtual absl::Status CopyToHost(void* host, const void* dev, size_t dev_offset, size_t nbytes) = 0;
  virtual absl::Status CopyWithinDevice(void* dst, size_t dst_offset, const void* src, size_t src_offset,
                                        size_t nbytes) = 0;
  // Sets `nbytes` bytes at `dev` + `dev_offset` to zero.
  virtual absl::Status Zero(void* dev, size_t dev_offset, size_t nbytes) = 0;
  // Waits until everything issued to the device so far has finished.
  virtual absl::Status Synchronize() = 0;
};

// The API for `device` (shared, safe from any thread, never destroyed: it outlives every tensor).
// For GPU devices this opens the device runtime on first use (device_registry.h): UNAVAILABLE
// ("device unavailable: ...") when the machine has no driver or platform for it, UNIMPLEMENTED for
// device types kiln has no runtime for.
absl::StatusOr<DeviceAPI*> GetDeviceAPI(DLDevice device);

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_DEVICE_DEVICE_API_H_
