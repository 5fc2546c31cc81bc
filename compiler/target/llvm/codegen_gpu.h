// LLVM GPU backends: SplitHostDevice's device kernels (calling_conv 2, flattened TIR) -> LLVM IR
// -> PTX through LLVM 16's NVPTX backend ("nvptx -mcpu=sm_90") or an HSA code object through its
// AMDGPU backend ("rocm -mcpu=gfx90a", compile only: linked with ld.lld into the shared ELF that
// the ROCm runtime loads).
//
// The emitter is the CPU backend's (codegen_llvm_internal.h) with the GPU constructs added:
//   * kernels are `void <global_symbol>(params...)` with handles as pointers and scalars by value;
//     NVPTX marks them with nvvm.annotations "kernel" (and "maxntidx" from constant threadIdx
//     extents), AMDGPU with the amdgpu_kernel calling convention and
//     "amdgpu-flat-work-group-size";
//   * thread_extent attributes read llvm.nvvm.read.ptx.sreg.{ctaid,tid}.{x,y,z} or
//     llvm.amdgcn.{workgroup,workitem}.id.{x,y,z};
//   * "shared" allocations are module globals in address space 3 (shared memory / LDS), "local"
//     ones per-thread allocas; both need a constant size;
//   * T.tvm_storage_sync("shared") is llvm.nvvm.barrier0 (bar.sync 0) or workgroup fences around
//     llvm.amdgcn.s.barrier;
//   * NVPTX math the backend cannot lower (exp, log, tanh, pow, ...) calls libdevice (__nv_*),
//     linked from the CUDA toolkit's nvvm/libdevice/libdevice.10.bc ($KILN_LIBDEVICE overrides);
//     ROCm math beyond what the AMDGPU backend lowers itself (the ROCm device libraries) is
//     rejected.
// Not supported (INVALID_ARGUMENT naming the construct): asserts in device code, calls between
// PrimFuncs, dynamic-size device allocations, vector math calls.
#ifndef KILN_COMPILER_TARGET_LLVM_CODEGEN_GPU_H_
#define KILN_COMPILER_TARGET_LLVM_CODEGEN_GPU_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/ir.h"

namespace kiln::codegen {

struct GPUTarget {
  enum class Kind { kNVPTX, kROCm };
  Kind kind = Kind::kNVPTX;
  std::string cpu;  // sm_XY for NVPTX, gfxNNN for ROCm

  std::string triple() const { return kind == Kind::kNVPTX ? "nvptx64-nvidia-cuda" : "amdgcn-amd-amdhsa"; }
  // Canonical spelling ("nvptx -mcpu=sm_90", "rocm -mcpu=gfx90a").
  std::string ToString() const;
};

// Parses "nvptx [-mcpu=sm_XY]" (default sm_90) or "rocm [-mcpu=gfxNNN]" (default gfx90a).
// INVALID_ARGUMENT names an unknown option or a CPU LLVM's backend does not know.
absl::StatusOr<GPUTarget> ParseGPUTarget(absl::string_view spec);

// The kernels' optimized LLVM IR, as text.
absl::StatusOr<std::string> EmitGPULLVMAssembly(const std::vector<ir::PrimFunc>& kernels, const GPUTarget& target);

// The device binary: PTX text for NVPTX, an HSA code object (ELF) for ROCm. ROCm needs ld.lld-16
// or ld.lld on PATH ($KILN_LLD overrides); FAILED_PRECONDITION when neither is found.
absl::StatusOr<std::string> CompileGPUKernels(const std::vector<ir::PrimFunc>& kernels, const GPUTarget& target);

}  // namespace kiln::codegen

#endif  // KILN_COMPILER_TARGET_LLVM_CODEGEN_GPU_H_
