// CUDA C backend: prints the device kernels that SplitHostDevice outlines (calling_conv 2,
// flattened TIR) as one CUDA C++ translation unit for NVRTC (nvrtc_compile.h). Expressions print as
// in the C backend (compiler/target/source/c c_printer.h); what differs is CUDA's:
//   * `extern "C" __global__ void __launch_bounds__(N) <global_symbol>(...)`: data handles as
//     `T*`, scalars by value; N is the product of the kernel's constant threadIdx extents;
//   * thread_extent attributes -> blockIdx.{x,y,z} / threadIdx.{x,y,z};
//   * "shared" allocations -> `__shared__` arrays at kernel scope, "local" ones -> per-thread
//     arrays; both need a constant size;
//   * T.tvm_storage_sync("shared") -> __syncthreads(), ("warp") -> __syncwarp(), ("global") ->
//     __threadfence() then __syncthreads() (a barrier of the block only: CUDA has no grid-wide
//     barrier outside cooperative launches);
//   * float16 is cuda_fp16.h's __half, bfloat16 is stored as its bits and rounded through
//     cuda_bf16.h's __float2bfloat16 (round to nearest even, as on the CPU backends).
// Not supported yet (INVALID_ARGUMENT naming the construct): asserts in device code, bool, vector,
// float16 or bfloat16 kernel arguments, calls between PrimFuncs and extern calls, dynamic-size
// device allocations.
#ifndef KILN_COMPILER_TARGET_SOURCE_CUDA_CODEGEN_CUDA_H_
#define KILN_COMPILER_TARGET_SOURCE_CUDA_CODEGEN_CUDA_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::codegen {

// What a launcher needs to know about one kernel of the program.
struct CUDAKernelInfo {
  std::string name;                      // the __global__ function's name (its global_symbol)
  std::vector<ir::DataType> params;      // handle (a buffer) or the scalar's type, in order
  std::vector<std::string> launch_tags;  // "blockIdx.x", ... in the order the host passes extents
};

struct CUDAProgramSource {
  std::string source;
  std::vector<CUDAKernelInfo> kernels;
};

// One CUDA C++ translation unit holding every kernel of `kernels` (SplitHostDevice's device
// functions).
absl::StatusOr<CUDAProgramSource> GenerateCUDA(const std::vector<ir::PrimFunc>& kernels);

}  // namespace kiln::codegen

#endif  // KILN_COMPILER_TARGET_SOURCE_CUDA_CODEGEN_CUDA_H_
