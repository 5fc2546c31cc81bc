#include "runtime/device/opencl/opencl_device.h"

#include <gtest/gtest.h>

#include <vector>

namespace kiln::runtime::opencl {
namespace {

// Skips (with the reason) on a machine without an OpenCL platform; everything else must work.
std::unique_ptr<OpenCLDevice> OpenOrSkip() {
  absl::StatusOr<std::unique_ptr<OpenCLDevice>> d = OpenCLDevice::Open();
  if (!d.ok()) {
    EXPECT_TRUE(absl::IsUnavailable(d.status())) << d.status();
    return nullptr;
  }
  return std::move(*d);
}

TEST(OpenCLDeviceTest, BuildsLaunchesAndCopies) {
  std::unique_ptr<OpenCLDevice> dev = OpenOrSkip();
  if (dev == nullptr) GTEST_SKIP() << "no OpenCL platform";
  auto prog = dev->Build(R"(
__kernel void axpy(__global float* y, __global const float* x, float a, int n) {
  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
})");
  ASSERT_TRUE(prog.ok()) << prog.status();
  const int n = 100;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = i, y[i] = 1;
  auto bx = dev->Alloc(n * sizeof(float));
  auto by = dev->Alloc(n * sizeof(float));
  ASSERT_TRUE(bx.ok() && by.ok());
  ASSERT_TRUE(dev->Write(*bx, x.data(), n * sizeof(float)).ok());
  ASSERT_TRUE(dev->Write(*by, y.data(), n * sizeof(float)).ok());
  absl::Status st = (*prog)->Launch("axpy", {KernelArg::Of(by->mem()), KernelArg::Of(bx->mem()), KernelArg::Of(2.0f), KernelArg::Of(n)},
                                    {4, 1, 1}, {32, 1, 1});
  ASSERT_TRUE(st.ok()) << st;
  ASSERT_TRUE(dev->Finish().ok());
  ASSERT_TRUE(dev->Read(y.data(), *by, n * sizeof(float)).ok());
  for (int i = 0; i < n; ++i) EXPECT_EQ(y[i], 2.0f * i + 1) << i;
}

TEST(OpenCLDeviceTest, BuildErrorCarriesTheLog) {
  std::unique_ptr<OpenCLDevice> dev = OpenOrSkip();
  if (dev == nullptr) GTEST_SKIP() << "no OpenCL platform";
  auto prog = dev->Build("__kernel void broken(__global float* y) { y[0] = undeclared_name; }");
  ASSERT_FALSE(prog.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(prog.status()));
  EXPECT_NE(prog.status().message().find("undeclared_name"), std::string::npos) << prog.status();
}

TEST(OpenCLDeviceTest, UnknownKernelAndWrongArgCount) {
  std::unique_ptr<OpenCLDevice> dev = OpenOrSkip();
  if (dev == nullptr) GTEST_SKIP() << "no OpenCL platform";
  auto prog = dev->Build("__kernel void k(__global int* y) { y[get_local_id(0)] = 1; }");
  ASSERT_TRUE(prog.ok()) << prog.status();
  EXPECT_TRUE(absl::IsInvalidArgument((*prog)->Launch("nope", {}, {1, 1, 1}, {1, 1, 1})));
  EXPECT_TRUE(absl::IsInvalidArgument((*prog)->Launch("k", {}, {1, 1, 1}, {1, 1, 1})));
}

}  // namespace
}  // namespace kiln::runtime::opencl
