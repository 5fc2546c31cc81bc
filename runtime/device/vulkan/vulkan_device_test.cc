#include "runtime/device/vulkan/vulkan_device.h"

#include <gtest/gtest.h>

#include <spirv-tools/libspirv.hpp>

#include <cstring>
#include <vector>

#include "runtime/device/vulkan/axpy_shader_testdata.h"

namespace kiln::runtime::vulkan {
namespace {

std::vector<uint32_t> Assemble(const char* text) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::vector<uint32_t> words;
  EXPECT_TRUE(tools.Assemble(text, &words));
  EXPECT_TRUE(tools.Validate(words));
  return words;
}

// Skips (with the reason) on a machine without Vulkan; everything else must work.
std::unique_ptr<VulkanDevice> OpenOrSkip() {
  absl::StatusOr<std::unique_ptr<VulkanDevice>> d = VulkanDevice::Open();
  if (!d.ok()) {
    EXPECT_TRUE(absl::IsUnavailable(d.status())) << d.status();
    return nullptr;
  }
  return std::move(*d);
}

std::vector<uint8_t> Push(float a, int32_t n) {
  std::vector<uint8_t> p(8);
  std::memcpy(p.data(), &a, 4);
  std::memcpy(p.data() + 4, &n, 4);
  return p;
}

TEST(VulkanDeviceTest, LaunchesWithBlockSizesFromSpecializationAndTimes) {
  std::unique_ptr<VulkanDevice> dev = OpenOrSkip();
  if (dev == nullptr) GTEST_SKIP() << "no Vulkan device";
  auto k = dev->CreateKernel({"axpy", Assemble(testdata::kAxpy), 2, 8});
  ASSERT_TRUE(k.ok()) << k.status();
  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * i, y[i] = 1.0f;
  auto bx = dev->Alloc(n * 4), by = dev->Alloc(n * 4);
  ASSERT_TRUE(bx.ok() && by.ok());
  ASSERT_TRUE(dev->Write(*bx, 0, x.data(), n * 4).ok());
  ASSERT_TRUE(dev->Write(*by, 0, y.data(), n * 4).ok());
  // Two block sizes: two pipelines of one kernel; both cover all n elements.
  uint64_t ns = 0;
  ASSERT_TRUE((*k)->Launch({{&*by}, {&*bx}}, Push(2.0f, n), {(n + 63) / 64, 1, 1}, {64, 1, 1}, &ns).ok());
  absl::Status st = (*k)->Launch({{&*by}, {&*bx}}, Push(1.0f, n), {(n + 127) / 128, 1, 1}, {128, 1, 1});
  ASSERT_TRUE(st.ok()) << st;
  std::vector<float> out(n);
  ASSERT_TRUE(dev->Read(out.data(), *by, 0, n * 4).ok());
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 1.0f + 3.0f * 0.5f * i) << i;
  EXPECT_GT(ns, 0u) << "timestamp queries on " << dev->description();
}

TEST(VulkanDeviceTest, CopiesAtOffsetsWithinBounds) {
  std::unique_ptr<VulkanDevice> dev = OpenOrSkip();
  if (dev == nullptr) GTEST_SKIP() << "no Vulkan device";
  auto a = dev->Alloc(16), b = dev->Alloc(16);
  ASSERT_TRUE(a.ok() && b.ok());
  const uint8_t src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  ASSERT_TRUE(dev->Zero(*b, 0, 16).ok());
  ASSERT_TRUE(dev->Write(*a, 4, src, 8).ok());
  ASSERT_TRUE(dev->Copy(*b, 8, *a, 6, 8).ok());
  uint8_t out[16];
  ASSERT_TRUE(dev->Read(out, *b, 0, 16).ok());
  const uint8_t want[16] = {0, 0, 0, 0, 0, 0, 0, 0, 3, 4, 5, 6, 7, 8, 0, 0};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], want[i]) << i;
  EXPECT_TRUE(absl::IsOutOfRange(dev->Write(*a, 12, src, 8)));
  EXPECT_TRUE(absl::IsOutOfRange(dev->Read(out, *a, 17, 0)));
}

TEST(VulkanDeviceTest, RejectsBadLaunches) {
  std::unique_ptr<VulkanDevice> dev = OpenOrSkip();
  if (dev == nullptr) GTEST_SKIP() << "no Vulkan device";
  auto k = dev->CreateKernel({"axpy", Assemble(testdata::kAxpy), 2, 8});
  ASSERT_TRUE(k.ok()) << k.status();
  auto b = dev->Alloc(16);
  ASSERT_TRUE(b.ok());
  absl::Status st = (*k)->Launch({{&*b}}, Push(1, 4), {1, 1, 1}, {4, 1, 1});
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  st = (*k)->Launch({{&*b}, {&*b}}, Push(1, 4), {1, 1, 1}, {100000, 1, 1});
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  st = (*k)->Launch({{&*b, 32}, {&*b}}, Push(1, 4), {1, 1, 1}, {4, 1, 1});  // an offset past the end
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  // An empty grid runs nothing.
  EXPECT_TRUE((*k)->Launch({{&*b}, {&*b}}, Push(1, 4), {0, 1, 1}, {4, 1, 1}).ok());
}

TEST(VulkanDeviceTest, RejectsModulesTheDriverCannotTake) {
  std::unique_ptr<VulkanDevice> dev = OpenOrSkip();
  if (dev == nullptr) GTEST_SKIP() << "no Vulkan device";
  std::vector<uint32_t> words = Assemble(testdata::kAxpy);
  // A capability kiln never enables (Kernel = 6) is refused before the driver sees it.
  words.insert(words.begin() + 5, {(2u << 16) | 17u, 6u});
  auto k = dev->CreateKernel({"axpy", words, 2, 8});
  ASSERT_FALSE(k.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(k.status())) << k.status();
  // More push constants than the device takes.
  k = dev->CreateKernel({"axpy", Assemble(testdata::kAxpy), 2, 1u << 20});
  EXPECT_TRUE(absl::IsInvalidArgument(k.status())) << k.status();
}

}  // namespace
}  // namespace kiln::runtime::vulkan
