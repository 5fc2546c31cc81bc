#include "runtime/device/vulkan/vulkan_device.h"

#include <gtest/gtest.h>

#include <spirv-tools/libspirv.hpp>

#include <cstring>
#include <vector>

namespace kiln::runtime::vulkan {
namespace {

// y[i] = a * x[i] + y[i] for i < n, in the interface codegen_spirv emits: buffers at bindings 0
// and 1, push constants {float a; int n}, the workgroup size from specialization constants 0-2.
constexpr char kAxpy[] = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "axpy" %gid %lid
               OpDecorate %rta ArrayStride 4
               OpDecorate %blk Block
               OpMemberDecorate %blk 0 Offset 0
               OpDecorate %y DescriptorSet 0
               OpDecorate %y Binding 0
               OpDecorate %x DescriptorSet 0
               OpDecorate %x Binding 1
               OpDecorate %pc Block
               OpMemberDecorate %pc 0 Offset 0
               OpMemberDecorate %pc 1 Offset 4
               OpDecorate %gid BuiltIn WorkgroupId
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %sx SpecId 0
               OpDecorate %sy SpecId 1
               OpDecorate %sz SpecId 2
               OpDecorate %wg BuiltIn WorkgroupSize
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
        %int = OpTypeInt 32 1
       %uint = OpTypeInt 32 0
      %uvec3 = OpTypeVector %uint 3
       %bool = OpTypeBool
        %rta = OpTypeRuntimeArray %float
        %blk = OpTypeStruct %rta
      %p_blk = OpTypePointer StorageBuffer %blk
          %y = OpVariable %p_blk StorageBuffer
          %x = OpVariable %p_blk StorageBuffer
         %pc = OpTypeStruct %float %int
       %p_pc = OpTypePointer PushConstant %pc
     %params = OpVariable %p_pc PushConstant
    %p_uvec3 = OpTypePointer Input %uvec3
        %gid = OpVariable %p_uvec3 Input
        %lid = OpVariable %p_uvec3 Input
         %sx = OpSpecConstant %uint 1
         %sy = OpSpecConstant %uint 1
         %sz = OpSpecConstant %uint 1
         %wg = OpSpecConstantComposite %uvec3 %sx %sy %sz
      %int_0 = OpConstant %int 0
      %int_1 = OpConstant %int 1
    %p_float = OpTypePointer PushConstant %float
      %p_int = OpTypePointer PushConstant %int
   %p_sfloat = OpTypePointer StorageBuffer %float
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %pa = OpAccessChain %p_float %params %int_0
          %a = OpLoad %float %pa
         %pn = OpAccessChain %p_int %params %int_1
          %n = OpLoad %int %pn
          %g = OpLoad %uvec3 %gid
          %l = OpLoad %uvec3 %lid
         %gx = OpCompositeExtract %uint %g 0
         %lx = OpCompositeExtract %uint %l 0
         %bx = OpCompositeExtract %uint %wg 0
         %t0 = OpIMul %uint %gx %bx
         %iu = OpIAdd %uint %t0 %lx
          %i = OpBitcast %int %iu
         %in = OpSLessThan %bool %i %n
               OpSelectionMerge %done None
               OpBranchConditional %in %body %done
       %body = OpLabel
         %px = OpAccessChain %p_sfloat %x %int_0 %i
         %py = OpAccessChain %p_sfloat %y %int_0 %i
         %xv = OpLoad %float %px
         %yv = OpLoad %float %py
         %ax = OpFMul %float %a %xv
          %r = OpFAdd %float %ax %yv
               OpStore %py %r
               OpBranch %done
       %done = OpLabel
               OpReturn
               OpFunctionEnd
)";

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
  auto k = dev->CreateKernel({"axpy", Assemble(kAxpy), 2, 8});
  ASSERT_TRUE(k.ok()) << k.status();
  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * i, y[i] = 1.0f;
  auto bx = dev->Alloc(n * 4), by = dev->Alloc(n * 4);
  ASSERT_TRUE(bx.ok() && by.ok());
  ASSERT_TRUE(dev->Write(*bx, x.data(), n * 4).ok());
  ASSERT_TRUE(dev->Write(*by, y.data(), n * 4).ok());
  // Two block sizes: two pipelines of one kernel; both cover all n elements.
  uint64_t ns = 0;
  ASSERT_TRUE((*k)->Launch({&*by, &*bx}, Push(2.0f, n), {(n + 63) / 64, 1, 1}, {64, 1, 1}, &ns).ok());
  absl::Status st = (*k)->Launch({&*by, &*bx}, Push(1.0f, n), {(n + 127) / 128, 1, 1}, {128, 1, 1});
  ASSERT_TRUE(st.ok()) << st;
  std::vector<float> out(n);
  ASSERT_TRUE(dev->Read(out.data(), *by, n * 4).ok());
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 1.0f + 3.0f * 0.5f * i) << i;
  EXPECT_GT(ns, 0u) << "timestamp queries on " << dev->description();
}

TEST(VulkanDeviceTest, RejectsBadLaunches) {
  std::unique_ptr<VulkanDevice> dev = OpenOrSkip();
  if (dev == nullptr) GTEST_SKIP() << "no Vulkan device";
  auto k = dev->CreateKernel({"axpy", Assemble(kAxpy), 2, 8});
  ASSERT_TRUE(k.ok()) << k.status();
  auto b = dev->Alloc(16);
  ASSERT_TRUE(b.ok());
  absl::Status st = (*k)->Launch({&*b}, Push(1, 4), {1, 1, 1}, {4, 1, 1});
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  st = (*k)->Launch({&*b, &*b}, Push(1, 4), {1, 1, 1}, {100000, 1, 1});
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  // An empty grid runs nothing.
  EXPECT_TRUE((*k)->Launch({&*b, &*b}, Push(1, 4), {0, 1, 1}, {4, 1, 1}).ok());
}

TEST(VulkanDeviceTest, RejectsModulesTheDriverCannotTake) {
  std::unique_ptr<VulkanDevice> dev = OpenOrSkip();
  if (dev == nullptr) GTEST_SKIP() << "no Vulkan device";
  std::vector<uint32_t> words = Assemble(kAxpy);
  // A capability kiln never enables (Kernel = 6) is refused before the driver sees it.
  words.insert(words.begin() + 5, {(2u << 16) | 17u, 6u});
  auto k = dev->CreateKernel({"axpy", words, 2, 8});
  ASSERT_FALSE(k.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(k.status())) << k.status();
  // More push constants than the device takes.
  k = dev->CreateKernel({"axpy", Assemble(kAxpy), 2, 1u << 20});
  EXPECT_TRUE(absl::IsInvalidArgument(k.status())) << k.status();
}

}  // namespace
}  // namespace kiln::runtime::vulkan
