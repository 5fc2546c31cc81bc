// A machine without an OpenCL platform: Open() reports the device unavailable instead of failing
// or crashing. Simulated by pointing the ICD loader at an empty vendors directory, which must
// happen before anything in the process calls into OpenCL (hence its own test binary).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

#include "runtime/device/device_api.h"
#include "runtime/device/device_module.h"
#include "runtime/device/opencl/opencl_device.h"

namespace kiln::runtime {
namespace opencl {
namespace {

TEST(OpenCLUnavailableTest, NoPlatformIsUnavailable) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/no-icd-XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  ASSERT_EQ(setenv("OCL_ICD_VENDORS", dir.c_str(), 1), 0);
  absl::StatusOr<std::unique_ptr<OpenCLDevice>> d = OpenCLDevice::Open();
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(absl::IsUnavailable(d.status())) << d.status();
  EXPECT_NE(d.status().message().find("device unavailable"), std::string::npos) << d.status();
  // The same through the registry, and for memory.
  absl::StatusOr<DeviceRuntime*> rt = GetDeviceRuntime(kDLOpenCL);
  EXPECT_TRUE(absl::IsUnavailable(rt.status())) << rt.status();
  EXPECT_TRUE(absl::IsUnavailable(GetDeviceAPI({kDLOpenCL, 0}).status()));
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace opencl
}  // namespace kiln::runtime
