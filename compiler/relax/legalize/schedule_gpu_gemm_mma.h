// Internal to ScheduleDefaultGPU: the tensor-core schedule of a float16 GEMM stage on NVIDIA GPUs
// of compute capability 8.0 and newer (cuda and nvptx targets), tried before the SIMT schedule of
// schedule_gpu_gemm.h, which keeps every stage this one does not take. Each warp computes its
// share of the block's output tile with the warp-level instruction
// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (T.ptx_legacy.mma in the TIR; a 16 x 16 float16
// A fragment times a 16 x 8 float16 B fragment accumulated into a 16 x 8 float32 fragment, each
// spread over the warp's 32 lanes as the PTX ISA lays it out), with both operand tiles staged in
// shared memory and each lane's fragment values read from there by the layout below.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_GEMM_MMA_H_
#define KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_GEMM_MMA_H_

#include <optional>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/relax/legalize/schedule_gpu_stage.h"

namespace kiln::relax::legalize {

// The one switch: false leaves every GEMM to the SIMT schedule, whatever the target.
inline constexpr bool kGemmTensorCores = true;

// The block tile: 128 x 128 outputs per block of kMmaWarpsM x kMmaWarpsN warps, each warp a
// 64 x 32 sub-tile (4 x 4 instructions of 16 x 8), stepping through K 32 at a time. M and N must
// be multiples of the block tile and K of the K step (all static), so that no tile is partial.
inline constexpr int64_t kMmaTileM = 128, kMmaTileN = 128, kMmaTileK = 32;
inline constexpr int64_t kMmaWarpsM = 2, kMmaWarpsN = 4;

// Where element `r` of one lane's fragment sits in its matrix, for the lane's group
// g = lane / 4 and thread-in-group t = lane % 4 (the PTX ISA's "Matrix Fragments for
// mma.m16n8k16 with floating point type"): A is 16 x 16 (row = m, col = k) with r in [0, 8), B is
// 16 x 8 (row = k, col = n) with r in [0, 4), C / D is 16 x 8 (row = m, col = n) with r in [0, 4).
// Register j of a lane's A or B operand packs its elements 2j (low half) and 2j + 1.
struct MmaElement {
  ir::PrimExpr row, col;
};
MmaElement MmaFragmentA(const ir::PrimExpr& g, const ir::PrimExpr& t, int r);
MmaElement MmaFragmentB(const ir::PrimExpr& g, const ir::PrimExpr& t, int r);
MmaElement MmaFragmentC(const ir::PrimExpr& g, const ir::PrimExpr& t, int r);

// A reduction stage of the form
//   C[batch..., i, j] = C[batch..., i, j] + x * y,  T.init C[batch..., i, j] = 0
// for one reduction iter var k, where x is a float16 load (or its cast to C's dtype) that uses i
// and k but not j, y one that uses j and k but not i, the other iter vars (batch) index anything,
// C is float16 or float32, and the extents of i, j and k are positive constants. The tensor-core
// schedules (this one and schedule_gpu_gemm_wgmma.h) take the GEMMs their tiles divide.
struct Float16Gemm {
  const ir::VarNode *i, *j, *k;
  ir::PrimExpr a, b;  // the float16 loads of A (uses i, k) and B (uses j, k)
  std::vector<const ir::IterVarNode*> batch;
  int64_t m, n, kk;  // the extents of i, j and k
};
std::optional<Float16Gemm> MatchFloat16Gemm(const ReductionStage& s);
// The substitution of `g`'s iter vars at batch point `bz` and at `i`, `j`, `k` (an undefined one
// is left alone), each cast to its var's dtype (int64 from LegalizeOps; hand-written TIR may use
// int32).
tir::transform::VarMap Float16GemmAt(const Float16Gemm& g, const ReductionStage& s, const ir::PrimExpr& bz,
                                     const ir::PrimExpr& i, const ir::PrimExpr& j, const ir::PrimExpr& k);
// `body` (one output tile of `tile_m` x `tile_n`) under the grid of blocks over `g`'s output:
// blockIdx.x = bx over N, blockIdx.y = by over M, blockIdx.z = bz over the batch (when it has more
// than one point).
ir::Stmt Float16GemmGrid(const Float16Gemm& g, const ReductionStage& s, int64_t tile_m, int64_t tile_n,
                         const ir::Var& bz, const ir::Var& by, const ir::Var& bx, ir::Stmt body);

// `stage` (a statement of an s_tir function's root block) scheduled on tensor cores, or nullopt
// when kGemmTensorCores is false or the stage is not a Float16Gemm whose extents the tiles divide.
// The products are summed in float32 (as cuBLAS's CUBLAS_COMPUTE_32F does) and the sum cast to C's
// dtype at the end; the order of the K sum differs from the serial loop's (results may differ in
// the last bits). The caller checks the target (cuda or nvptx, sm_80 or newer).
std::optional<ir::Stmt> ScheduleGemmMmaStage(const ir::Stmt& stage);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_GEMM_MMA_H_
