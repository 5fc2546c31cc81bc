// OpenCL C backend: prints the device kernels that SplitHostDevice outlines (calling_conv 2,
// flattened TIR) as one OpenCL C program, built at load time by the OpenCL platform
// (runtime/device/opencl). Expressions print as in the C backend (compiler/target/source/c
// c_printer.h, extended here); what differs is OpenCL's:
//   * `__kernel void <global_symbol>(...)`: data handles as `__global T*`, scalars by value;
//   * thread_extent attributes -> get_group_id(d) (blockIdx.x/y/z) and get_local_id(d)
//     (threadIdx.x/y/z); the host launches grid * block work-items in work-groups of block;
//   * "shared" allocations -> `__local` arrays at kernel scope (OpenCL allows them nowhere else),
//     "local" allocations -> private arrays; both need a constant size;
//   * T.tvm_storage_sync("shared") -> barrier(CLK_LOCAL_MEM_FENCE), ("global") ->
//     barrier(CLK_GLOBAL_MEM_FENCE).
// Not supported yet (INVALID_ARGUMENT naming the construct): asserts in device code, float16 and
// bfloat16, bool kernel arguments, calls between PrimFuncs, dynamic-size device allocations.
#ifndef KILN_COMPILER_TARGET_SOURCE_OPENCL_CODEGEN_OPENCL_H_
#define KILN_COMPILER_TARGET_SOURCE_OPENCL_CODEGEN_OPENCL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::codegen {

// What a launcher needs to know about one kernel of the program.
struct OpenCLKernelInfo {
  std::string name;                    // the __kernel's name (the PrimFunc's global_symbol)
  std::vector<ir::DataType> params;    // handle (a buffer) or the scalar's type, in order
  std::vector<std::string> launch_tags;  // "blockIdx.x", ... in the order the host passes extents
};

struct OpenCLProgramSource {
  std::string source;
  std::vector<OpenCLKernelInfo> kernels;
};

// One OpenCL C program holding every kernel of `kernels` (SplitHostDevice's device functions).
absl::StatusOr<OpenCLProgramSource> GenerateOpenCL(const std::vector<ir::PrimFunc>& kernels);

}  // namespace kiln::codegen

#endif  // KILN_COMPILER_TARGET_SOURCE_OPENCL_CODEGEN_OPENCL_H_
