// Host memory for the CPU device: aligned_alloc-style allocation with explicit alignment.
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "runtime/device/device_api.h"

namespace kiln::runtime {
namespace {

class CpuDeviceAPI final : public DeviceAPI {
 public:
  absl::StatusOr<void*> AllocDataSpace(size_t nbytes, size_t alignment) override {
    if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) {
      return absl::InvalidArgumentError(absl::StrCat("alignment ", alignment, " is not a power of two >= ",
                                                     sizeof(void*)));
    }
    void* ptr = nullptr;
    // posix_memalign, unlike aligned_alloc, has no "size must be a multiple of alignment" rule.
    if (posix_memalign(&ptr, alignment, nbytes == 0 ? 1 : nbytes) != 0 || ptr == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", nbytes, " bytes of host memory"));
    }
    return ptr;
  }
  void FreeDataSpace(void* ptr) override { std::free(ptr); }
};

}  // namespace

absl::StatusOr<DeviceAPI*> GetDeviceAPI(DLDevice device) {
  // Stateless, so one shared instance is safe; never destroyed so it outlives every tensor.
  static CpuDeviceAPI* const cpu = new CpuDeviceAPI();
  if (device.device_type == kDLCPU) return cpu;
  return absl::UnimplementedError(absl::StrCat("no device API for device type ", device.device_type));
}

}  // namespace kiln::runtime
