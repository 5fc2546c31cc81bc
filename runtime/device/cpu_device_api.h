// The host CPU's DeviceAPI (what GetDeviceAPI returns for kDLCPU).
#ifndef KILN_RUNTIME_DEVICE_CPU_DEVICE_API_H_
#define KILN_RUNTIME_DEVICE_CPU_DEVICE_API_H_

#include "runtime/device/device_api.h"

namespace kiln::runtime {

// Shared and stateless: safe from any thread, never destroyed.
DeviceAPI* CpuDevice();

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_DEVICE_CPU_DEVICE_API_H_
