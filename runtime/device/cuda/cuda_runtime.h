// The CUDA device behind kiln's device interfaces (runtime/device/device_module.h): its DeviceAPI
// (device pointers are CUdeviceptr values; copies are blocking) and its DeviceRuntime, which loads
// "ptx" (JIT-compiled by the driver) and "cubin" blobs into modules whose launches run on the
// primary context's default stream, in issue order.
#ifndef KILN_RUNTIME_DEVICE_CUDA_CUDA_RUNTIME_H_
#define KILN_RUNTIME_DEVICE_CUDA_CUDA_RUNTIME_H_

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/device/device_module.h"

namespace kiln::runtime::cuda {

// Opens CUDA device 0 (CUDADevice::Open): UNAVAILABLE "device unavailable: ..." when the machine
// has no driver or no device. The registry (device_registry.cc) calls it once.
absl::StatusOr<std::unique_ptr<DeviceRuntime>> OpenCUDARuntime();

}  // namespace kiln::runtime::cuda

#endif  // KILN_RUNTIME_DEVICE_CUDA_CUDA_RUNTIME_H_
