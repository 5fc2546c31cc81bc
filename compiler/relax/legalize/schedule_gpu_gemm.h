// Internal to ScheduleDefaultGPU: the shared-memory tiled schedule of a GEMM-like stage (matmul,
// batched matmul, and convolutions as implicit GEMMs), the part of the default GPU schedule that
// makes the compute-bound ops use the device's on-chip memory.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_GEMM_H_
#define KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_GEMM_H_

#include <optional>

#include "compiler/ir/ir.h"

namespace kiln::relax::legalize {

// The tile shape: a block of kGemmThreadsY x kGemmThreadsX threads computes a kGemmTileM x
// kGemmTileN output tile (each thread a 4 x 4 register tile, strided by the thread counts so that
// neighbouring threads touch neighbouring elements), stepping through the reduction kGemmTileK at a
// time with both operand tiles staged in shared memory.
inline constexpr int64_t kGemmTileM = 64, kGemmTileN = 64, kGemmTileK = 16;
inline constexpr int64_t kGemmThreadsY = 16, kGemmThreadsX = 16;

// `stage` (a statement of an s_tir function's root block) scheduled as a tiled GEMM, or nullopt
// when it does not have the form:
//   * a nest of plain loops around one SBlockRealize (no predicate, no allocations) whose iter
//     values are the loop variables, each loop binding one data-parallel or reduction iter var;
//   * the block stores C[spatial indices] = f(C[same indices], ...) with a T.init storing C;
//   * every other buffer load of f uses a reduction iter var, and the loads fall in two groups by
//     the data-parallel iter vars they use beyond those all loads share (the "batch" vars): the
//     I group (the rows of A) and the J group (the columns of B) use disjoint sets.
// The reduction iter vars are fused into one K axis, the I vars into M and the J vars into N (a
// convolution's (n, y, x) against its output channels, over (c, ky, kx)). Each maximal
// subexpression of f that uses only batch, I and K vars (or batch, J and K) and loads something
// (a load, or a padded convolution's whole if_then_else) is evaluated once per tile element into
// shared memory. The stage also needs at least 256 outputs and a K of at least 8 (below that the
// one-thread-per-output schedule does as well). Numerics: each output is reduced in K order, as
// the block's serial loops would.
std::optional<ir::Stmt> ScheduleGemmStage(const ir::Stmt& stage);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_GEMM_H_
