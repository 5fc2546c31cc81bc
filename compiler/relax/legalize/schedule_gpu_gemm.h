// Internal to ScheduleDefaultGPU: the shared-memory tiled schedule of a GEMM-like stage (matmul,
// batched matmul, and convolutions as implicit GEMMs), the part of the default GPU schedule that
// makes the compute-bound ops use the device's on-chip memory.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_GEMM_H_
#define KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_GEMM_H_

#include <optional>

#include "compiler/ir/ir.h"

namespace kiln::relax::legalize {

// A tile configuration: a block of threads_y x threads_x threads computes a tile_m x tile_n output
// tile, each thread a (tile_m / threads_y) x (tile_n / threads_x) register tile, stepping through
// the reduction tile_k at a time with both operand tiles staged in shared memory (the A tile
// transposed, [K][M + a_pad], so that for one k a thread's A values sit side by side as its B
// values do). A thread's rows are runs of `group` consecutive rows, the runs threads_y * group
// apart (and likewise its columns): group 1 strides a thread's elements by the thread count, so
// that neighbouring threads touch neighbouring elements; group 4 gives each thread 16-byte runs
// that the device compiler can read from shared memory as one vector. With `double_buffer` the
// next K step's operands are read from global memory into registers while the current step
// computes, into the other half of two shared tiles, with one barrier per step.
struct GemmConfig {
  int64_t tile_m, tile_n, tile_k;
  int64_t threads_y, threads_x;
  int64_t group;
  int64_t a_pad;
  bool double_buffer;
};
// Small problems: 4 x 4 per thread, so that a few hundred outputs still fill a block.
inline constexpr GemmConfig kGemmSmall = {64, 64, 16, 16, 16, 1, 1, false};
// Large problems: 8 x 8 per thread (64 accumulators, 16 shared-memory reads per 64 FMAs, 4 when
// vectorized), the classic SIMT SGEMM shape.
inline constexpr GemmConfig kGemmLarge = {128, 128, 8, 16, 16, 4, 4, true};
// kGemmLarge is chosen when M and N are both at least this (a symbolic extent counts as large):
// below it a 128 x 128 tile leaves too few blocks to fill the device.
inline constexpr int64_t kGemmLargeMinExtent = 512;

// The configuration for an M x N output (per batch point); the one place the choice is made.
const GemmConfig& ChooseGemmConfig(const ir::PrimExpr& m, const ir::PrimExpr& n);

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
// one-thread-per-output schedule does as well). The tile configuration is ChooseGemmConfig's.
// Numerics: each output is reduced in K order, as the block's serial loops would; an update
// C + x * y in a float type is one fused multiply-add per k (one rounding), with float32
// accumulators for float16 (and the operands converted to float32 as they enter the tiles),
// rounded to float16 once at the end.
std::optional<ir::Stmt> ScheduleGemmStage(const ir::Stmt& stage);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_GEMM_H_
