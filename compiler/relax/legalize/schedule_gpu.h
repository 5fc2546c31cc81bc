// ScheduleDefaultGPU: the default GPU schedule for the PrimFuncs that LegalizeOps and FuseTIR
// produce, as TVM's dlight fallback / DefaultGPUSchedule does, so that every kernel of a Relax
// model built for a GPU target runs on the device's threads without a user-written schedule.
// Run after FuseTIR, in place of ScheduleDefaultCPU, when the target is a GPU.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_H_
#define KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_H_

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::relax::legalize {

// Module attribute (set to True) when the GPU target has 32-lane warp shuffles (CUDA
// __shfl_down_sync, NVPTX shfl.sync.down): the cooperative reductions then combine their float32
// and int32 partials with shuffles inside each warp and shared memory only across warps.
inline constexpr char kGPUWarpShuffleAttr[] = "kiln.gpu_warp_shuffle";

// Module attribute (set to True) when the GPU target has the sm_80 tensor-core instructions (cuda
// or nvptx for sm_80 and newer): float16 GEMMs that fit the tensor-core schedule
// (schedule_gpu_gemm_mma.h, behind its switch kGemmTensorCores) use it.
inline constexpr char kGPUTensorCoreAttr[] = "kiln.gpu_tensor_core";

// Module attribute (set to True) when the GPU target has Hopper's warpgroup tensor-core
// instructions (cuda -arch=sm_90a): float16 GEMMs that fit schedule_gpu_gemm_wgmma.h use them,
// before the sm_80 schedule is tried.
inline constexpr char kGPUWgmmaAttr[] = "kiln.gpu_wgmma";

// Threads per block of the default schedule (a stage with fewer iterations gets one block of
// exactly that many threads).
inline constexpr int64_t kDefaultGPUBlockSize = 256;

// Every PrimFunc of `module` that binds no GPU thread yet (no "kiln.scheduled" or
// "tir.is_host_func" attribute, no T.thread_binding or T.launch_thread) is scheduled. One in
// plain TIR (not s_tir) runs whole in a single thread. One in s_tir form is scheduled stage by
// stage (a stage is a statement of the root block), taking the first schedule that fits:
//   * a GEMM-like reduction (matmul, batched matmul, a convolution as an implicit GEMM): output
//     tiles per thread block with both operand tiles staged in shared memory
//     (schedule_gpu_gemm.h);
//   * a long reduction of +, *, max or min: one thread block per output, partials combined in
//     shared memory (schedule_gpu_reduce.h);
//   * a perfect loop nest around one SBlockRealize whose leading loops are bound to data-parallel
//     iter vars: those loops are fused into one, split by kDefaultGPUBlockSize and bound to
//     blockIdx.x / threadIdx.x, with a guard for the last partial block; the remaining loops
//     (reductions) stay serial inside, so a reduction runs one thread per output element;
//   * any other stage runs whole in a single thread (one block of one thread): slow, but it keeps
//     every buffer access on the device.
// Stages run in order as separate kernel launches on the device's in-order queue. The first and
// third keep each output's reduction order; the cooperative reduction reassociates it (float
// results may differ in the last bits). Scheduled functions get "kiln.scheduled".
absl::StatusOr<ir::IRModule> ScheduleDefaultGPU(const ir::IRModule& module);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_H_
