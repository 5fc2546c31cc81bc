// R.matmul legalized to a PrimFunc with the default CPU schedule (linalg.cc).
#ifndef KILN_COMPILER_RELAX_LEGALIZE_LINALG_H_
#define KILN_COMPILER_RELAX_LEGALIZE_LINALG_H_

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/relax/legalize/loops.h"

namespace kiln::relax::legalize {

// out = a @ b with numpy's semantics: a 1-D operand gets a unit dim that the result drops, batch
// dims broadcast (a dim that is the constant 1 on one side follows the other side), and the
// product and sum are computed in out_dtype (a's dtype when void). Dims may be symbolic. The
// PrimFunc takes (a, b, out) buffers.
//
// The schedule is the one tests/bench/cpu_kernel_bench.cc showed near OpenBLAS: b is packed into
// 16-wide column panels (the last one zero-padded; products of at most 48 rows with whole panels
// read b in place instead), and each register tile keeps a 6x16 block of the result in registers
// while a k block (at most 128 deep, the blocks of a constant k equal) runs, as fused
// multiply-adds on 16-lane vectors, then stores it (first k block) or adds it into the output.
// Parallel tasks are row groups (4 tiles, or all rows when there are at most 8 tiles) times
// column chunks, about 16 in all so that a static split over the threads is balanced; per k block
// and panel a group's tiles run back to back, the panel staying in L1. A task that sweeps 16 or
// more panels first packs its rows of a for the k block (6 rows interleaved), so the broadcasts
// read one stream rather than rows whose power-of-two stride aliases in L1. The rows below a
// multiple of 6 form one smaller tile (a constant m) or 1-row tiles (a symbolic one) in the last
// group's tasks; a partial last panel is written back by a serial loop in the last chunk's tasks.
// Products under 2^18 multiply-adds run on the calling thread. When b has no batch dims, a's batch
// dims fold into its rows (one big product, b packed once).
absl::StatusOr<ir::PrimFunc> MatmulKernel(const TensorSpec& a, const TensorSpec& b, ir::DataType out_dtype);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_LINALG_H_
