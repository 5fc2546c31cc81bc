// The Vulkan runtime through kiln's device interfaces (registry, DeviceAPI, DeviceModule), on
// lavapipe in CI. Without a Vulkan device the tests skip with the reason.
#include <gtest/gtest.h>

#include <spirv-tools/libspirv.hpp>

#include <vector>

#include "runtime/device/device_api.h"
#include "runtime/device/device_module.h"
#include "runtime/device/device_test_util.h"
#include "runtime/device/vulkan/axpy_shader_testdata.h"
#include "runtime/device/vulkan/vulkan_abi.h"

namespace kiln::runtime {
namespace {

class VulkanRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<DeviceRuntime*> rt = GetDeviceRuntime(kDLVulkan);
    if (!rt.ok()) {
      ASSERT_TRUE(absl::IsUnavailable(rt.status())) << rt.status();
      GTEST_SKIP() << rt.status();
    }
    rt_ = *rt;
  }
  DeviceRuntime* rt_ = nullptr;
};

using testing::Float;
using testing::Int;
using testing::Ptr;

DeviceBlob Axpy() {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::vector<uint32_t> words;
  EXPECT_TRUE(tools.Assemble(vulkan::testdata::kAxpy, &words));
  DeviceBlob b;
  b.format = "spirv";
  b.code = vulkan::PackModules({words});
  b.kernels.push_back({"axpy",
                       {kDeviceHandleType, kDeviceHandleType, DLDataType{kDLFloat, 32, 1}, DLDataType{kDLInt, 32, 1}},
                       {"blockIdx.x", "threadIdx.x"}});
  return b;
}

TEST_F(VulkanRuntimeTest, RegistryAndGetDeviceAPIAgree) {
  EXPECT_EQ(rt_->device_type(), kDLVulkan);
  EXPECT_EQ(*GetDeviceAPI({kDLVulkan, 0}), rt_->api());
  EXPECT_TRUE(absl::IsUnavailable(GetDeviceAPI({kDLVulkan, 1}).status()));
}

TEST_F(VulkanRuntimeTest, LoadsLaunchesAndCopiesThroughTheInterfaces) {
  absl::StatusOr<std::unique_ptr<DeviceModule>> m = rt_->Load(Axpy());
  ASSERT_TRUE(m.ok()) << m.status();
  DeviceAPI* api = rt_->api();
  const int n = 300;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i), y[i] = 1;
  void* dx = *api->AllocDataSpace(n * 4, 64);
  void* dy = *api->AllocDataSpace(n * 4, 64);
  ASSERT_TRUE(api->CopyFromHost(dx, 0, x.data(), n * 4).ok());
  ASSERT_TRUE(api->Zero(dy, 0, n * 4).ok());
  ASSERT_TRUE(api->CopyFromHost(dy, 0, y.data(), 100 * 4).ok());  // the rest stays zero
  KilnAny args[] = {Ptr(dy), Ptr(dx), Float(2), Int(n), Int((n + 63) / 64), Int(64)};
  ASSERT_TRUE((*m)->Launch("axpy", args, 6).ok());
  ASSERT_TRUE(api->Synchronize().ok());
  void* dz = *api->AllocDataSpace(n * 4, 64);
  ASSERT_TRUE(api->CopyWithinDevice(dz, 0, dy, 0, n * 4).ok());
  std::vector<float> out(n);
  ASSERT_TRUE(api->CopyToHost(out.data(), dz, 0, n * 4).ok());
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0f * i + (i < 100 ? 1 : 0)) << i;
  api->FreeDataSpace(dx);
  api->FreeDataSpace(dy);
  api->FreeDataSpace(dz);
}

// The device's own timer (time_evaluator's readings): device_test_util.h says what is checked.
TEST_F(VulkanRuntimeTest, TimerMeasuresDeviceTime) {
  absl::StatusOr<std::unique_ptr<DeviceModule>> m = rt_->Load(Axpy());
  ASSERT_TRUE(m.ok()) << m.status();
  testing::ExpectTimerMeasuresDeviceTime(rt_, m->get());
}

// A tensor placed inside a larger allocation is passed as base + offset, as the VM's storage
// planner does; an address outside every allocation is an error, not a crash.
TEST_F(VulkanRuntimeTest, PointersInsideAnAllocationBindAtTheirOffset) {
  absl::StatusOr<std::unique_ptr<DeviceModule>> m = rt_->Load(Axpy());
  ASSERT_TRUE(m.ok()) << m.status();
  DeviceAPI* api = rt_->api();
  const int n = 64;
  std::vector<float> host(2 * n);
  for (int i = 0; i < 2 * n; ++i) host[i] = static_cast<float>(i);
  char* storage = static_cast<char*>(*api->AllocDataSpace(2 * n * 4, 64));
  ASSERT_TRUE(api->CopyFromHost(storage, 0, host.data(), 2 * n * 4).ok());
  void* y = storage + n * 4;  // the second half
  KilnAny args[] = {Ptr(y), Ptr(storage), Float(1), Int(n), Int(1), Int(n)};
  ASSERT_TRUE((*m)->Launch("axpy", args, 6).ok());
  std::vector<float> out(n);
  ASSERT_TRUE(api->CopyToHost(out.data(), y, 0, n * 4).ok());
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], static_cast<float>(i) + static_cast<float>(n + i)) << i;
  KilnAny bad[] = {Ptr(reinterpret_cast<void*>(0x40)), Ptr(storage), Float(1), Int(n), Int(1), Int(n)};
  absl::Status st = (*m)->Launch("axpy", bad, 6);
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  EXPECT_FALSE(api->CopyToHost(out.data(), storage + 3 * n * 4, 0, 4).ok());
  api->FreeDataSpace(storage);
}

TEST_F(VulkanRuntimeTest, RejectsOtherFormatsAndMismatchedBlobs) {
  DeviceBlob b = Axpy();
  b.format = "opencl";
  EXPECT_TRUE(absl::IsInvalidArgument(rt_->Load(b).status()));
  b = Axpy();
  b.kernels.push_back(b.kernels[0]);  // two kernels, one module
  EXPECT_TRUE(absl::IsInvalidArgument(rt_->Load(b).status()));
}

}  // namespace
}  // namespace kiln::runtime
