// Host memory for the CPU device: aligned_alloc-style allocation with explicit alignment.
#include "runtime/device/cpu_device_api.h"

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

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

  absl::Status CopyFromHost(void* dev, size_t dev_offset, const void* host, size_t nbytes) override {
    if (nbytes != 0) std::memcpy(static_cast<char*>(dev) + dev_offset, host, nbytes);
    return absl::OkStatus();
  }
  absl::Status CopyToHost(void* host, const void* dev, size_t dev_offset, size_t nbytes) override {
    if (nbytes != 0) std::memcpy(host, static_cast<const char*>(dev) + dev_offset, nbytes);
    return absl::OkStatus();
  }
  absl::Status CopyWithinDevice(void* dst, size_t dst_offset, const void* src, size_t src_offset,
                                size_t nbytes) override {
    if (nbytes != 0) std::memmove(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset, nbytes);
    return absl::OkStatus();
  }
  absl::Status Zero(void* dev, size_t dev_offset, size_t nbytes) override {
    if (nbytes != 0) std::memset(static_cast<char*>(dev) + dev_offset, 0, nbytes);
    return absl::OkStatus();
  }
  absl::Status Synchronize() override { return absl::OkStatus(); }
};

}  // namespace

DeviceAPI* CpuDevice() {
  // Stateless, so one shared instance is safe; never destroyed so it outlives every tensor.
  static CpuDeviceAPI* const cpu = new CpuDeviceAPI();
  return cpu;
}

}  // namespace kiln::runtime
