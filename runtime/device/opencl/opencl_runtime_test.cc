// The OpenCL runtime through kiln's device interfaces (registry, DeviceAPI, DeviceModule), on
// PoCL in CI. Without an OpenCL platform the tests skip with the reason.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/device/device_api.h"
#include "runtime/device/device_module.h"
#include "runtime/device/device_test_util.h"

namespace kiln::runtime {
namespace {

class OpenCLRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<DeviceRuntime*> rt = GetDeviceRuntime(kDLOpenCL);
    if (!rt.ok()) GTEST_SKIP() << rt.status();
    rt_ = *rt;
  }
  DeviceRuntime* rt_ = nullptr;
};

using testing::Float;
using testing::Int;
using testing::Ptr;

DeviceBlob Axpy() {
  DeviceBlob b;
  b.format = "opencl";
  b.code =
      "__kernel void axpy(__global float* y, __global float* x, float a, int n) {\n"
      "  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);\n"
      "  if (i < n) y[i] = a * x[i] + y[i];\n"
      "}\n";
  b.kernels.push_back({"axpy",
                       {kDeviceHandleType, kDeviceHandleType, DLDataType{kDLFloat, 32, 1}, DLDataType{kDLInt, 32, 1}},
                       {"blockIdx.x", "threadIdx.x"}});
  return b;
}

TEST_F(OpenCLRuntimeTest, RegistryAndGetDeviceAPIAgree) {
  EXPECT_EQ(rt_->device_type(), kDLOpenCL);
  EXPECT_EQ(*GetDeviceAPI({kDLOpenCL, 0}), rt_->api());
  EXPECT_EQ(*GetDeviceRuntime(kDLOpenCL), rt_);
  EXPECT_TRUE(absl::IsUnavailable(GetDeviceAPI({kDLOpenCL, 3}).status()));
  EXPECT_EQ(DeviceForFormat("opencl")->device_type, kDLOpenCL);
}

TEST_F(OpenCLRuntimeTest, LoadsALaunchesAndCopies) {
  absl::StatusOr<DeviceBlob> blob = DeviceBlob::Deserialize(Axpy().Serialize());
  ASSERT_TRUE(blob.ok());
  absl::StatusOr<std::unique_ptr<DeviceModule>> m = rt_->Load(*blob);
  ASSERT_TRUE(m.ok()) << m.status();
  DeviceAPI* api = rt_->api();
  const int n = 100;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = i, y[i] = 1;
  void* dx = *api->AllocDataSpace(n * 4, kAllocAlignment);
  void* dy = *api->AllocDataSpace(n * 4, kAllocAlignment);
  ASSERT_TRUE(api->CopyFromHost(dx, 0, x.data(), n * 4).ok());
  ASSERT_TRUE(api->CopyFromHost(dy, 0, y.data(), n * 4).ok());
  // 4 groups of 32 cover 100 elements; the kernel guards the tail.
  std::vector<KilnAny> args = {Ptr(dy), Ptr(dx), Float(2), Int(n), Int(4), Int(32)};
  ASSERT_TRUE((*m)->Launch("axpy", args.data(), static_cast<int32_t>(args.size())).ok());
  std::vector<float> out(n);
  ASSERT_TRUE(api->CopyToHost(out.data(), dy, 0, n * 4).ok());
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0f * i + 1) << i;

  // Copies with offsets, within the device, and zeroing.
  ASSERT_TRUE(api->CopyWithinDevice(dy, 0, dx, 40, 8).ok());
  ASSERT_TRUE(api->Zero(dy, 8, 4).ok());
  float head[3];
  ASSERT_TRUE(api->CopyToHost(head, dy, 0, 12).ok());
  EXPECT_EQ(head[0], 10.0f);
  EXPECT_EQ(head[1], 11.0f);
  EXPECT_EQ(head[2], 0.0f);
  api->FreeDataSpace(dx);
  api->FreeDataSpace(dy);
}

// The device's own timer (time_evaluator's readings): device_test_util.h says what is checked.
TEST_F(OpenCLRuntimeTest, TimerMeasuresDeviceTime) {
  absl::StatusOr<std::unique_ptr<DeviceModule>> m = rt_->Load(Axpy());
  ASSERT_TRUE(m.ok()) << m.status();
  testing::ExpectTimerMeasuresDeviceTime(rt_, m->get());
}

TEST_F(OpenCLRuntimeTest, LaunchChecksItsArguments) {
  std::unique_ptr<DeviceModule> m = *rt_->Load(Axpy());
  std::vector<KilnAny> few = {Int(1)};
  absl::Status st = m->Launch("axpy", few.data(), 1);
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  EXPECT_NE(st.message().find("expected 6"), std::string::npos) << st;
  EXPECT_TRUE(absl::IsNotFound(m->Launch("nope", few.data(), 1)));
  std::vector<KilnAny> wrong = {Float(1), Ptr(nullptr), Float(2), Int(1), Int(1), Int(1)};
  st = m->Launch("axpy", wrong.data(), 6);
  EXPECT_NE(st.message().find("argument #0"), std::string::npos) << st;
  std::vector<KilnAny> negative = {Ptr(nullptr), Ptr(nullptr), Float(2), Int(1), Int(-1), Int(1)};
  st = m->Launch("axpy", negative.data(), 6);
  EXPECT_NE(st.message().find("blockIdx.x"), std::string::npos) << st;
  // An empty grid launches nothing (and so needs no valid buffers).
  std::vector<KilnAny> empty = {Ptr(nullptr), Ptr(nullptr), Float(2), Int(0), Int(0), Int(32)};
  EXPECT_TRUE(m->Launch("axpy", empty.data(), 6).ok());
}

// Dynamic shared memory is a CUDA launch parameter: OpenCL refuses a kernel that asks for it
// rather than launching it without.
TEST_F(OpenCLRuntimeTest, DynamicSharedMemoryIsRefused) {
  DeviceBlob b = Axpy();
  b.kernels[0].launch_params.push_back("tir.use_dyn_shared_memory");
  std::unique_ptr<DeviceModule> m = *rt_->Load(b);
  std::vector<KilnAny> args = {Ptr(nullptr), Ptr(nullptr), Float(2), Int(1), Int(1), Int(32), Int(1024)};
  absl::Status st = m->Launch("axpy", args.data(), 7);
  EXPECT_TRUE(absl::IsUnimplemented(st)) << st;
  EXPECT_NE(st.message().find("dynamic shared memory"), std::string::npos) << st;
}

TEST_F(OpenCLRuntimeTest, BuildErrorsCarryTheLogAndOtherFormatsAreRefused) {
  DeviceBlob bad = Axpy();
  bad.code = "__kernel void axpy(__global float* y) { y[0] = undefined_name; }";
  absl::StatusOr<std::unique_ptr<DeviceModule>> m = rt_->Load(bad);
  ASSERT_TRUE(absl::IsInvalidArgument(m.status())) << m.status();
  EXPECT_NE(m.status().message().find("undefined_name"), std::string::npos) << m.status();
  DeviceBlob spirv = Axpy();
  spirv.format = "spirv";
  EXPECT_TRUE(absl::IsInvalidArgument(rt_->Load(spirv).status()));
}

}  // namespace
}  // namespace kiln::runtime
