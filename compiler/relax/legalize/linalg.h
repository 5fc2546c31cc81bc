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
// 16-wide column panels (the last one zero-padded), each parallel task owns a group of 4 blocks of
// 6 rows; per 128-deep k block and panel, each block keeps a 6x16 tile of the result in registers
// while k runs (fused multiply-adds on 16-lane vectors), then adds the tile into the output (the
// panel stays in L1 for the group's 4 tiles). Rows left over below a
// multiple of 6 use 1x16 tiles, in parallel over the panels (so a matrix-vector product uses every
// core); a partial last panel is written back by a serial loop. When b has
// no batch dims, a's batch dims fold into its rows (one big product, b packed once).
absl::StatusOr<ir::PrimFunc> MatmulKernel(const TensorSpec& a, const TensorSpec& b, ir::DataType out_dtype);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_LINALG_H_
