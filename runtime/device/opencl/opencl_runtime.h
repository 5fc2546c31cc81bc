// The OpenCL device behind kiln's device interfaces (runtime/device/device_module.h): its
// DeviceAPI (device pointers are cl_mem handles; offsets go to the enqueue calls) and its
// DeviceRuntime, which loads "opencl" blobs (OpenCL C source, built by the platform at load time,
// build log surfaced as the error) into modules whose launches run on the device's in-order queue.
#ifndef KILN_RUNTIME_DEVICE_OPENCL_OPENCL_RUNTIME_H_
#define KILN_RUNTIME_DEVICE_OPENCL_OPENCL_RUNTIME_H_

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/device/device_module.h"

namespace kiln::runtime::opencl {

// Opens the first OpenCL device (OpenCLDevice::Open): UNAVAILABLE "device unavailable: ..." when
// the machine has no platform or no device. The registry (device_registry.cc) calls it once.
absl::StatusOr<std::unique_ptr<DeviceRuntime>> OpenOpenCLRuntime();

}  // namespace kiln::runtime::opencl

#endif  // KILN_RUNTIME_DEVICE_OPENCL_OPENCL_RUNTIME_H_
