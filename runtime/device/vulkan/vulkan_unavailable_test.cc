// A machine without a Vulkan driver: Open() reports the device unavailable instead of failing or
// crashing. Simulated by pointing the loader at a driver manifest that does not exist, which must
// happen before anything in the process calls into Vulkan (hence its own test binary).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "runtime/device/vulkan/vulkan_device.h"

namespace kiln::runtime::vulkan {
namespace {

TEST(VulkanUnavailableTest, NoDriverIsUnavailable) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string manifest = std::string(tmp != nullptr ? tmp : "/tmp") + "/no-such-icd.json";
  ASSERT_EQ(setenv("VK_ICD_FILENAMES", manifest.c_str(), 1), 0);
  ASSERT_EQ(setenv("VK_DRIVER_FILES", manifest.c_str(), 1), 0);
  absl::StatusOr<std::unique_ptr<VulkanDevice>> d = VulkanDevice::Open();
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(absl::IsUnavailable(d.status())) << d.status();
  EXPECT_NE(d.status().message().find("device unavailable"), std::string::npos) << d.status();
}

}  // namespace
}  // namespace kiln::runtime::vulkan
