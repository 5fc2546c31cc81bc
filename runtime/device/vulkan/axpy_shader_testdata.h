// Test data: an axpy compute shader (SPIR-V assembly) in the interface vulkan_abi.h describes,
// for the Vulkan runtime's tests. Kernel "axpy"(y: buffer, x: buffer, a: float32, n: int32).
#ifndef KILN_RUNTIME_DEVICE_VULKAN_AXPY_SHADER_TESTDATA_H_
#define KILN_RUNTIME_DEVICE_VULKAN_AXPY_SHADER_TESTDATA_H_

namespace kiln::runtime::vulkan::testdata {

// y[i] = a * x[i] + y[i] for i < n, in the interface codegen_spirv emits: buffers at bindings 0
// and 1, push constants {float a; int n}, the workgroup size from specialization constants 0-2.
inline constexpr char kAxpy[] = R"(
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

}  // namespace kiln::runtime::vulkan::testdata

#endif  // KILN_RUNTIME_DEVICE_VULKAN_AXPY_SHADER_TESTDATA_H_
