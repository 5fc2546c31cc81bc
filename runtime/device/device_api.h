// The per-device memory services the runtime needs, behind one small interface so that tensors,
// the VM and the agent allocate the same way on every device. Only the CPU exists today; GPU
// devices (CUDA via dlopen, Vulkan, OpenCL) implement the same interface later.
#ifndef KILN_RUNTIME_DEVICE_DEVICE_API_H_
#define KILN_RUNTIME_DEVICE_DEVICE_API_H_

#include <cstddef>

#include <dlpack/dlpack.h>

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
};

// The API for `device` (stateless and shared: safe from any thread). UNIMPLEMENTED for devices the
// runtime has no backend for yet.
absl::StatusOr<DeviceAPI*> GetDeviceAPI(DLDevice device);

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_DEVICE_DEVICE_API_H_
