// Vulkan backend: the device kernels that SplitHostDevice outlines (calling_conv 2, flattened TIR)
// as SPIR-V compute shaders, one module per kernel, built word by word with spirv_builder.h, then
// validated and optimized with SPIRV-Tools (spirv_tools.h). The module targets Vulkan 1.1
// (SPIR-V 1.3, GLSL450 memory model, logical addressing). Its interface is the one
// runtime/device/vulkan/vulkan_abi.h defines (and the Vulkan runtime binds):
//   * entry point: GLCompute, named by the kernel's global_symbol;
//   * buffer params -> storage buffers `struct { T data[]; }` in descriptor set 0 at the bindings
//     ArgLayoutOf gives; T is the element type the kernel accesses the buffer with (bool is stored
//     as uint8, as on the host);
//   * scalar params -> one push-constant block at ArgLayoutOf's offsets and types, converted back
//     to the param's type in the shader;
//   * threadIdx.x/y/z -> LocalInvocationId, blockIdx.x/y/z -> WorkgroupId; the workgroup size is
//     the WorkgroupSize built-in made of specialization constants 0, 1, 2 (x, y, z; default 1),
//     so one module serves any block size the host computes (symbolic extents included) and the
//     launcher specializes a pipeline per block size;
//   * "shared" allocations -> Workgroup arrays, "local" (and per-thread "global") allocations ->
//     Function arrays; T.tvm_storage_sync("shared"/"global") -> OpControlBarrier at workgroup
//     scope with workgroup (and, for "global", device) memory semantics;
//   * math through GLSL.std.450; if_then_else, Select, && and || whose other operand loads
//     memory branch (the skipped side is never evaluated, as in C).
// Types: bool, int8/16/32/64, uint8/16/32/64, float16/32/64; a type beyond 32-bit int/float
// declares its capability (Int64, Float16, StorageBuffer8BitAccess, ...), which the device
// runtime checks against the device's features before it creates a pipeline.
// Not supported (INVALID_ARGUMENT naming the construct): vector types, asserts in device code,
// calls between PrimFuncs, dynamic-size allocations, bfloat16/float8, float64 transcendental
// functions (GLSL.std.450 has them for float16/32 only), erf.
#ifndef KILN_COMPILER_TARGET_SPIRV_CODEGEN_SPIRV_H_
#define KILN_COMPILER_TARGET_SPIRV_CODEGEN_SPIRV_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::codegen {

// One kernel's SPIR-V.
struct SPIRVKernel {
  std::string name;             // the entry point (the PrimFunc's global_symbol)
  std::vector<uint32_t> words;  // the validated, optimized module
};

// One module per kernel of `kernels` (SplitHostDevice's device functions), each validated and
// optimized. INVALID_ARGUMENT for what the backend does not support; INTERNAL when SPIRV-Tools
// rejects a module (a codegen bug), with the validator's message.
absl::StatusOr<std::vector<SPIRVKernel>> GenerateSPIRV(const std::vector<ir::PrimFunc>& kernels);

}  // namespace kiln::codegen

#endif  // KILN_COMPILER_TARGET_SPIRV_CODEGEN_SPIRV_H_
