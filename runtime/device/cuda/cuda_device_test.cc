#include "runtime/device/cuda/cuda_device.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

namespace kiln::runtime::cuda {
namespace {

// a[i] += 1 for i < n. PTX ISA 7.0 for sm_75, so any driver and device CUDA 13 supports JITs it.
constexpr char kAddOnePTX[] = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry add_one(.param .u64 add_one_param_0, .param .u32 add_one_param_1)
{
  .reg .pred %p<2>;
  .reg .f32 %f<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [add_one_param_0];
  ld.param.u32 %r2, [add_one_param_1];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r1, %r3, %r4, %r5;
  setp.ge.s32 %p1, %r1, %r2;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd4], %f2;
DONE:
  ret;
}
)";

void ExpectUnavailable(const absl::StatusOr<std::unique_ptr<CUDADevice>>& d) {
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(absl::IsUnavailable(d.status())) << d.status();
  EXPECT_NE(d.status().message().find("device unavailable"), std::string::npos) << d.status();
}

TEST(CUDADeviceTest, MissingDriverLibraryIsUnavailable) {
  CUDAOpenOptions options;
  options.library = "libkiln-no-such-cuda-driver.so.1";
  ExpectUnavailable(CUDADevice::Open(options));
}

// The real driver: UNAVAILABLE here (no GPU), a kernel round trip on a GPU machine. It runs before
// the stub test: once the stub is loaded, its soname (libcuda.so.1) is taken in this process and
// dlopen("libcuda.so.1") would return the stub.
TEST(CUDADeviceTest, DefaultDeviceRunsAKernelOrIsUnavailable) {
  absl::StatusOr<std::unique_ptr<CUDADevice>> d = CUDADevice::Open();
  if (!d.ok()) {
    ExpectUnavailable(d);
    GTEST_SKIP() << d.status();
  }
  const CUDADevice& dev = **d;
  EXPECT_GE(dev.compute_capability(), 75) << dev.description();
  constexpr int kN = 1000;
  std::vector<float> host(kN);
  for (int i = 0; i < kN; ++i) host[i] = static_cast<float>(i);
  absl::StatusOr<CUDABuffer> buf = dev.Alloc(kN * sizeof(float));
  ASSERT_TRUE(buf.ok()) << buf.status();
  ASSERT_TRUE(dev.CopyToDevice(*buf, host.data(), kN * sizeof(float)).ok());
  absl::StatusOr<std::unique_ptr<CUDAModule>> mod = dev.LoadModule(kAddOnePTX);
  ASSERT_TRUE(mod.ok()) << mod.status();
  std::vector<KernelArg> args = {KernelArg::Of(buf->ptr()), KernelArg::Of<int32_t>(kN)};
  absl::StatusOr<double> ms = dev.TimeMs([&] { return (*mod)->Launch("add_one", args, {4, 1, 1}, {256, 1, 1}); });
  ASSERT_TRUE(ms.ok()) << ms.status();
  EXPECT_GE(*ms, 0.0);
  ASSERT_TRUE(dev.Synchronize().ok());
  std::vector<float> out(kN);
  ASSERT_TRUE(dev.CopyToHost(out.data(), *buf, kN * sizeof(float)).ok());
  for (int i = 0; i < kN; ++i) ASSERT_EQ(out[i], static_cast<float>(i + 1)) << i;
  EXPECT_TRUE(absl::IsNotFound((*mod)->Launch("no_such_kernel", args, {1, 1, 1}, {1, 1, 1})));
  absl::StatusOr<std::unique_ptr<CUDAModule>> bad = dev.LoadModule(".version 7.0\n.target sm_75\nnot ptx");
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status())) << bad.status();
}


// The toolkit ships a stub libcuda.so for linking; loaded, every call returns
// CUDA_ERROR_STUB_LIBRARY. That is a machine without a driver too.
TEST(CUDADeviceTest, StubDriverIsUnavailable) {
  const char* stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (access(stub, R_OK) != 0) stub = "/usr/local/cuda/lib/stubs/libcuda.so";
  if (access(stub, R_OK) != 0) GTEST_SKIP() << "no CUDA toolkit stub driver on this machine";
  // With the real driver loaded, the stub's soname resolves to it: there is no stub to try.
  if (CUDADevice::Open().ok()) GTEST_SKIP() << "a real CUDA driver is loaded in this process";
  CUDAOpenOptions options;
  options.library = stub;
  absl::StatusOr<std::unique_ptr<CUDADevice>> d = CUDADevice::Open(options);
  ExpectUnavailable(d);
  EXPECT_NE(d.status().message().find("stub"), std::string::npos) << d.status();
}

TEST(CUDADeviceTest, PastTheLastDeviceIsUnavailable) {
  CUDAOpenOptions options;
  options.ordinal = 1 << 20;
  ExpectUnavailable(CUDADevice::Open(options));
}

}  // namespace
}  // namespace kiln::runtime::cuda
