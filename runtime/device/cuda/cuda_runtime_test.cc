// The CUDA runtime through kiln's device interfaces (registry, DeviceAPI, DeviceModule). Without a
// GPU the registry must report the device unavailable; with one, a PTX blob runs.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "runtime/device/device_api.h"
#include "runtime/device/device_module.h"
#include "runtime/device/device_test_util.h"

namespace kiln::runtime {
namespace {

using testing::Float;
using testing::Int;
using testing::Ptr;

// y = a * x + y, PTX ISA 7.0 for sm_75 (loads on any device and driver CUDA 13 supports).
DeviceBlob Axpy() {
  DeviceBlob b;
  b.format = "ptx";
  b.code = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry axpy(.param .u64 p_y, .param .u64 p_x, .param .f32 p_a, .param .u32 p_n)
{
  .reg .pred %p<2>;
  .reg .f32 %f<5>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p_y];
  ld.param.u64 %rd2, [p_x];
  ld.param.f32 %f1, [p_a];
  ld.param.u32 %r2, [p_n];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r1, %r3, %r4, %r5;
  setp.ge.s32 %p1, %r1, %r2;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.s32 %rd5, %r1, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.f32 %f2, [%rd7];
  ld.global.f32 %f3, [%rd6];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd6], %f4;
DONE:
  ret;
}
)";
  b.kernels.push_back({"axpy",
                       {kDeviceHandleType, kDeviceHandleType, DLDataType{kDLFloat, 32, 1}, DLDataType{kDLInt, 32, 1}},
                       {"blockIdx.x", "threadIdx.x"}});
  return b;
}

TEST(CUDARuntimeTest, UnavailableOrRunsAxpy) {
  absl::StatusOr<DeviceRuntime*> rt = GetDeviceRuntime(kDLCUDA);
  if (!rt.ok()) {
    EXPECT_TRUE(absl::IsUnavailable(rt.status())) << rt.status();
    EXPECT_NE(rt.status().message().find("device unavailable"), std::string::npos) << rt.status();
    EXPECT_TRUE(absl::IsUnavailable(GetDeviceAPI({kDLCUDA, 0}).status()));
    GTEST_SKIP() << rt.status();
  }
  EXPECT_EQ((*rt)->device_type(), kDLCUDA);
  DeviceAPI* api = (*rt)->api();
  constexpr int kN = 1000;
  std::vector<float> x(kN), y(kN);
  for (int i = 0; i < kN; ++i) x[i] = static_cast<float>(i), y[i] = 1.0f;
  void* dx = *api->AllocDataSpace(kN * 4, kAllocAlignment);
  void* dy = *api->AllocDataSpace(kN * 4, kAllocAlignment);
  ASSERT_TRUE(api->CopyFromHost(dx, 0, x.data(), kN * 4).ok());
  ASSERT_TRUE(api->CopyFromHost(dy, 0, y.data(), kN * 4).ok());
  absl::StatusOr<std::unique_ptr<DeviceModule>> m = (*rt)->Load(Axpy());
  ASSERT_TRUE(m.ok()) << m.status();
  std::vector<KilnAny> args = {Ptr(dy), Ptr(dx), Float(2.0), Int(kN), Int(4), Int(256)};
  ASSERT_TRUE((*m)->Launch("axpy", args.data(), static_cast<int32_t>(args.size())).ok());
  std::vector<float> out(kN);
  ASSERT_TRUE(api->CopyToHost(out.data(), dy, 0, kN * 4).ok());
  for (int i = 0; i < kN; ++i) ASSERT_EQ(out[i], 2.0f * i + 1.0f) << i;
  ASSERT_TRUE(api->Zero(dy, 4, 8).ok());
  ASSERT_TRUE(api->CopyToHost(out.data(), dy, 0, 16).ok());
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_EQ(out[3], 7.0f);
  api->FreeDataSpace(dx);
  api->FreeDataSpace(dy);
  DeviceBlob spirv;
  spirv.format = "spirv";
  EXPECT_TRUE(absl::IsInvalidArgument((*rt)->Load(spirv).status()));
}

// The device timer (CUDA events): positive device time for a batch of launches, within the host's
// interval around it. Skipped without a GPU (tests/gpu/run_cuda.sh runs it on one).
TEST(CUDARuntimeTest, TimerMeasuresDeviceTime) {
  absl::StatusOr<DeviceRuntime*> rt = GetDeviceRuntime(kDLCUDA);
  if (!rt.ok()) GTEST_SKIP() << rt.status();
  DeviceAPI* api = (*rt)->api();
  constexpr int kN = 1 << 20;
  void* dx = *api->AllocDataSpace(kN * 4, kAllocAlignment);
  void* dy = *api->AllocDataSpace(kN * 4, kAllocAlignment);
  ASSERT_TRUE(api->Zero(dx, 0, kN * 4).ok());
  ASSERT_TRUE(api->Zero(dy, 0, kN * 4).ok());
  absl::StatusOr<std::unique_ptr<DeviceModule>> m = (*rt)->Load(Axpy());
  ASSERT_TRUE(m.ok()) << m.status();
  std::vector<KilnAny> args = {Ptr(dy), Ptr(dx), Float(2.0), Int(kN), Int(kN / 256), Int(256)};
  absl::StatusOr<std::unique_ptr<DeviceTimer>> timer = (*rt)->StartTimer();
  ASSERT_TRUE(timer.ok()) << timer.status();
  auto host_start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE((*m)->Launch("axpy", args.data(), static_cast<int32_t>(args.size())).ok());
  absl::StatusOr<int64_t> ns = (*timer)->StopAndWait();
  int64_t host_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - host_start).count();
  ASSERT_TRUE(ns.ok()) << ns.status();
  EXPECT_GT(*ns, 0);
  EXPECT_LE(*ns, host_ns + 1000000);
  api->FreeDataSpace(dx);
  api->FreeDataSpace(dy);
}

}  // namespace
}  // namespace kiln::runtime
