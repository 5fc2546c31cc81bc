// The Vulkan device behind kiln's device interfaces (runtime/device/device_module.h): its
// DeviceAPI (a device pointer is an address in a range the runtime assigns to each buffer, so
// `pointer + offset` is a valid device pointer as on address-based devices)
// and its DeviceRuntime, which loads "spirv" blobs (one SPIR-V module per kernel, vulkan_abi.h)
// into modules whose launches bind buffers and push scalars as vulkan_abi.h lays them out.
#ifndef KILN_RUNTIME_DEVICE_VULKAN_VULKAN_RUNTIME_H_
#define KILN_RUNTIME_DEVICE_VULKAN_VULKAN_RUNTIME_H_

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/device/device_module.h"

namespace kiln::runtime::vulkan {

// Opens the Vulkan device (VulkanDevice::Open): UNAVAILABLE "device unavailable: ..." when the
// machine has no loader, driver or device. The registry (device_registry.cc) calls it once.
absl::StatusOr<std::unique_ptr<DeviceRuntime>> OpenVulkanRuntime();

}  // namespace kiln::runtime::vulkan

#endif  // KILN_RUNTIME_DEVICE_VULKAN_VULKAN_RUNTIME_H_
