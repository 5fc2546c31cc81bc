// The registry from device type to device runtime: one fixed table of the runtimes kiln has,
// each opened at most once per process on first use (std::call_once), so the registry is
// immutable after construction and safe from any thread. A new GPU runtime adds one row.
#include <mutex>

#include "absl/strings/str_cat.h"
#include "runtime/device/cpu_device_api.h"
#include "runtime/device/device_api.h"
#include "runtime/device/device_module.h"
#include "runtime/device/cuda/cuda_runtime.h"
#include "runtime/device/opencl/opencl_runtime.h"
#include "runtime/device/vulkan/vulkan_runtime.h"

namespace kiln::runtime {
namespace {

using OpenFn = absl::StatusOr<std::unique_ptr<DeviceRuntime>> (*)();

struct Entry {
  DLDeviceType type;
  OpenFn open;
};

// The runtimes, by device type.
constexpr Entry kRuntimes[] = {
    {kDLOpenCL, &opencl::OpenOpenCLRuntime},
    {kDLCUDA, &cuda::OpenCUDARuntime},
    {kDLVulkan, &vulkan::OpenVulkanRuntime},
};

class Registry {
 public:
  absl::StatusOr<DeviceRuntime*> Get(DLDeviceType type) {
    for (size_t i = 0; i < std::size(kRuntimes); ++i) {
      if (kRuntimes[i].type != type) continue;
      Slot& s = slots_[i];
      std::call_once(s.once, [&] {
        absl::StatusOr<std::unique_ptr<DeviceRuntime>> r = kRuntimes[i].open();
        if (r.ok()) {
          s.runtime = *std::move(r);
        } else {
          s.error = r.status();
        }
      });
      if (s.runtime == nullptr) return s.error;
      return s.runtime.get();
    }
    return absl::UnimplementedError(absl::StrCat("no device runtime for device type ", type));
  }

 private:
  struct Slot {
    std::once_flag once;
    std::unique_ptr<DeviceRuntime> runtime;
    absl::Status error;
  };
  Slot slots_[std::size(kRuntimes)];
};

Registry& TheRegistry() {
  // Never destroyed: device memory and modules may be released after static destructors run.
  static Registry* const registry = new Registry();
  return *registry;
}

}  // namespace

absl::StatusOr<DeviceRuntime*> GetDeviceRuntime(DLDeviceType type) { return TheRegistry().Get(type); }

absl::StatusOr<DLDevice> DeviceForFormat(absl::string_view format) {
  absl::StatusOr<DLDeviceType> type = DeviceTypeOfFormat(format);
  if (!type.ok()) return type.status();
  absl::StatusOr<DeviceRuntime*> rt = GetDeviceRuntime(*type);
  if (!rt.ok()) return rt.status();
  return DLDevice{*type, 0};
}

absl::StatusOr<DeviceAPI*> GetDeviceAPI(DLDevice device) {
  if (device.device_type == kDLCPU) return CpuDevice();
  absl::StatusOr<DeviceRuntime*> rt = GetDeviceRuntime(device.device_type);
  if (!rt.ok()) return rt.status();
  if (device.device_id != 0) {
    return absl::UnavailableError(absl::StrCat("device unavailable: ", (*rt)->description(), " has device 0 only, not ",
                                               device.device_id));
  }
  return (*rt)->api();
}

}  // namespace kiln::runtime
