// The registry: the CPU always, one shared runtime per GPU type, UNIMPLEMENTED for types kiln has
// no runtime for. (OpenCL's own behaviour is tested in opencl/opencl_runtime_test.)
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "runtime/device/cpu_device_api.h"
#include "runtime/device/device_api.h"
#include "runtime/device/device_module.h"

namespace kiln::runtime {
namespace {

TEST(DeviceRegistryTest, CpuCopiesAndZeroes) {
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI({kDLCPU, 0});
  ASSERT_TRUE(api.ok());
  EXPECT_EQ(*api, CpuDevice());
  absl::StatusOr<void*> mem = (*api)->AllocDataSpace(16, kAllocAlignment);
  ASSERT_TRUE(mem.ok());
  const char src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  ASSERT_TRUE((*api)->CopyFromHost(*mem, 8, src, 8).ok());
  ASSERT_TRUE((*api)->Zero(*mem, 0, 8).ok());
  ASSERT_TRUE((*api)->CopyWithinDevice(*mem, 0, *mem, 12, 4).ok());
  char out[16];
  ASSERT_TRUE((*api)->CopyToHost(out, *mem, 0, 16).ok());
  EXPECT_EQ(std::vector<char>(out, out + 16),
            (std::vector<char>{5, 6, 7, 8, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}));
  (*api)->FreeDataSpace(*mem);
}

TEST(DeviceRegistryTest, UnknownDeviceTypeIsUnimplemented) {
  EXPECT_TRUE(absl::IsUnimplemented(GetDeviceRuntime(kDLMetal).status()));
  EXPECT_TRUE(absl::IsUnimplemented(GetDeviceAPI({kDLMetal, 0}).status()));
}

TEST(DeviceRegistryTest, ConcurrentFirstUseGetsOneRuntime) {
  // Whether or not this machine has OpenCL, every thread sees the same answer.
  std::vector<absl::StatusOr<DeviceRuntime*>> seen(8, absl::UnknownError("unset"));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i) threads.emplace_back([&, i] { seen[i] = GetDeviceRuntime(kDLOpenCL); });
  for (std::thread& t : threads) t.join();
  for (const auto& s : seen) {
    EXPECT_EQ(s.ok(), seen[0].ok());
    if (s.ok()) {
      EXPECT_EQ(*s, *seen[0]);
    } else {
      EXPECT_TRUE(absl::IsUnavailable(s.status())) << s.status();
    }
  }
}

}  // namespace
}  // namespace kiln::runtime
