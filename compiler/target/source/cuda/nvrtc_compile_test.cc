#include "compiler/target/source/cuda/nvrtc_compile.h"

#include <gtest/gtest.h>

namespace kiln::codegen {
namespace {

TEST(CUDATargetTest, ParsesArchAndFastMath) {
  absl::StatusOr<CUDATarget> t = ParseCUDATarget("cuda -arch=sm_80 -fast-math");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->arch, "sm_80");
  EXPECT_TRUE(t->fast_math);
  EXPECT_EQ(t->ToString(), "cuda -arch=sm_80 -fast-math");
  absl::StatusOr<CUDATarget> d = ParseCUDATarget("cuda");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->ToString(), "cuda -arch=sm_90");
  absl::StatusOr<CUDATarget> a = ParseCUDATarget("cuda -arch=sm_90a");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->arch, "sm_90a");
}

TEST(CUDATargetTest, RejectsOldArchAndUnknownOptions) {
  absl::StatusOr<CUDATarget> old = ParseCUDATarget("cuda -arch=sm_70");
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.status().message().find("sm_75"), std::string::npos) << old.status();
  EXPECT_FALSE(ParseCUDATarget("cuda -arch=compute_90").ok());
  EXPECT_FALSE(ParseCUDATarget("cuda -mcpu=sm_90").ok());
  EXPECT_FALSE(ParseCUDATarget("llvm").ok());
}

constexpr char kKernel[] = R"(
extern "C" __global__ void scale(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 2.0f * a[i];
}
)";

// Compiles where NVRTC exists; elsewhere the error must say what is missing.
TEST(NVRTCCompileTest, PTXAndCubinOrAClearError) {
  CUDATarget target;
  absl::StatusOr<std::string> ptx = CompileWithNVRTC(kKernel, target);
  if (!ptx.ok()) {
    EXPECT_TRUE(absl::IsFailedPrecondition(ptx.status())) << ptx.status();
    EXPECT_NE(ptx.status().message().find("libnvrtc"), std::string::npos) << ptx.status();
    GTEST_SKIP() << "no NVRTC on this machine: " << ptx.status();
  }
  EXPECT_NE(ptx->find(".target sm_90"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find(".entry scale"), std::string::npos) << *ptx;
  absl::StatusOr<std::string> cubin = CompileWithNVRTC(kKernel, target, CUDABinary::kCubin);
  ASSERT_TRUE(cubin.ok()) << cubin.status();
  ASSERT_GE(cubin->size(), 4u);
  EXPECT_EQ(cubin->substr(0, 4), "\x7f" "ELF");
}

TEST(NVRTCCompileTest, RejectedSourceReturnsTheLog) {
  absl::StatusOr<std::string> ptx = CompileWithNVRTC("extern \"C\" __global__ void k() { undeclared(); }", {});
  if (absl::IsFailedPrecondition(ptx.status())) GTEST_SKIP() << ptx.status();
  ASSERT_FALSE(ptx.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(ptx.status())) << ptx.status();
  EXPECT_NE(ptx.status().message().find("undeclared"), std::string::npos) << ptx.status();
}

}  // namespace
}  // namespace kiln::codegen
