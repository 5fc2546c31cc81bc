// LegalizeOps: every high-level Relax operator call (relax.add, relax.nn.conv2d, ...) becomes a
// call_tir to a PrimFunc that computes it, as TVM's LegalizeOps does
// (../shared/notes/tvm-reference.md §5). One file per op family in this directory registers its
// builders in the table that legalize.cc builds once (immutable, safe from any thread); table.h is
// that registration API and te.h the small tensor-expression builder the families write PrimFuncs
// with. Structurally equal PrimFuncs are added once; names that a C library defines (exp, floor,
// ...) get a "tir_" prefix so that a kernel never shadows the function its own body calls.
//
// The PrimFuncs are s_tir-style (SBlocks with iter vars, reads/writes) so that FuseOps/FuseTIR can
// merge them, except the compute-heavy ops (matmul, conv, ...) whose builders emit the default CPU
// schedule (tiled, packed, vectorized, parallel) and are marked op_pattern kOutEWiseFusable/kOpaque.
// Symbolic dims flow through: bound by the kernel's buffer shapes where a shape has them as a bare
// dim, otherwise passed as trailing int64 prim values in call_tir's argument tuple (after the
// tensors; the PrimFunc takes inputs, outputs, then those scalars, as corpus relax/009 does).
//
// A call to an op with no legalization is an INVALID_ARGUMENT error naming the op and the call's
// source line; nothing is skipped silently. Ops the VM runs itself (call_tir, call_packed, shape_of,
// null_value, the memory/vm ops, builtin.alloc_tensor, ...) are left in place.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_LEGALIZE_H_
#define KILN_COMPILER_RELAX_LEGALIZE_LEGALIZE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::relax::legalize {

absl::StatusOr<ir::IRModule> LegalizeOps(const ir::IRModule& module);

// Module attribute set (to True) when the module is built for a GPU target: ops whose default
// legalization is a hand-scheduled CPU kernel (R.matmul, the convolutions) legalize to plain s_tir instead, for
// ScheduleDefaultGPU to bind to threads.
inline constexpr char kGPUTargetAttr[] = "kiln.gpu_target";

// The names of the operators LegalizeOps rewrites ("relax.add", ...), sorted.
std::vector<std::string> LegalizedOpNames();

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_LEGALIZE_H_
