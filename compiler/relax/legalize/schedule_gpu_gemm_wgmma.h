// Internal to ScheduleDefaultGPU: the Hopper tensor-core schedule of a float16 GEMM, for the cuda
// target with -arch=sm_90a (the arch-specific feature set of compute capability 9.0, which
// wgmma needs). Tried before the sm_80 schedule of schedule_gpu_gemm_mma.h, which keeps every
// GEMM this one does not take.
//
// Why a second tensor-core schedule: on Hopper the warp-level mma.sync runs at a fraction of the
// tensor cores' rate; only the warpgroup-level wgmma.mma_async, which reads both operands from
// shared memory through matrix descriptors, reaches it (cuBLAS's float16 GEMMs use it).
//
// The kernel: a block of two warpgroups (256 threads) owns a kWgmmaTileM x kWgmmaTileN output
// tile, each warpgroup 64 rows of it as 128 float32 accumulator registers per thread. K is walked
// kWgmmaTileK at a time through kWgmmaStages shared-memory stages that every thread fills with
// 16-byte cp.async copies, kWgmmaStages - 1 tiles ahead of the one being multiplied, so that the
// copies of later tiles overlap the tensor cores' work on this one. Both operand tiles are in the
// layouts the descriptors describe with the 128-byte swizzle: A K-major (rows of 64 k), B
// MN-major (rows of 64 n), each 8-row group one 1024-byte atom whose 16-byte chunks are permuted
// by the row's index within the atom, so that neither the copies nor the tensor cores' reads meet
// bank conflicts. The tiles take 192 KiB of dynamic shared memory (the launch passes its size);
// at the end the output tile is staged there and its rows written to C by the copy engine.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_GEMM_WGMMA_H_
#define KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_GEMM_WGMMA_H_

#include <cstdint>
#include <optional>

#include "compiler/ir/ir.h"

namespace kiln::relax::legalize {

inline constexpr int64_t kWgmmaTileM = 128, kWgmmaTileN = 256, kWgmmaTileK = 64, kWgmmaStages = 4;

// The byte offset, within one stage's A tile (kWgmmaTileM x kWgmmaTileK, K-major, 128-byte
// swizzle), of element (m, k); and within its B tile (kWgmmaTileK x kWgmmaTileN, MN-major), of
// element (k, n). The schedule's copies write there; the descriptors read there.
int64_t WgmmaOffsetA(int64_t m, int64_t k);
int64_t WgmmaOffsetB(int64_t k, int64_t n);

// Where value `v` (0..kWgmmaTileN/2) of thread `t` (0..127) of a warpgroup sits in its
// 64 x kWgmmaTileN float32 accumulator tile (the PTX ISA's wgmma "Register Fragments" for D).
struct WgmmaElement {
  int64_t row, col;
};
WgmmaElement WgmmaAccumulator(int64_t t, int64_t v);

// `stage` scheduled with wgmma, or nullopt when it is not a float16 GEMM (MatchFloat16Gemm) with
// A read as A[..., i, k] and B as B[..., k, j] from compact row-major buffers (the copies move 8
// consecutive elements) and M, N and K multiples of the block tile and of kWgmmaTileK. The
// products are summed in float32 and cast to C's dtype at the end. The caller checks the target.
std::optional<ir::Stmt> ScheduleGemmWgmmaStage(const ir::Stmt& stage);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_GEMM_WGMMA_H_
