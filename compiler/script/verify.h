// Buildability checks: what `kiln check` verifies beyond the TIR and Relax type rules so that a
// module it accepts builds on every CPU backend (llvm and c) and runs the same on the reference
// interpreter (issue 14). Each rule names a program class that passed the type rules and then
// crashed, hung or misbehaved in code generation:
//   - vectors: at most kMaxVectorLanes lanes (LLVM aborts on 40,000 lanes, 65,536 wraps the
//     16-bit lanes field to 0, and the C backend scalarizes lane by lane);
//   - buffers: at most kMaxBufferRank dimensions (numpy's own limit; the packed entry's stride
//     checks grow with the square of the rank) and no negative constant extent (an allocation too
//     large for its index dtype is TVM-valid and refused by lowering: tir/analysis/allocation_size.h);
//   - names: a PrimFunc's global_symbol is non-empty printable ASCII without spaces, quotes or
//     backslashes (what an assembler takes quoted), no two parameters of a function (PrimFunc or
//     Relax) share a name (which symbols may be exported together is checked by the build:
//     driver/kernel_symbols.h);
//   - constants: no shift by a constant amount outside [0, bits), no constant division by zero, no
//     constant INT_MIN / -1 (both trap at run time; folding would hide it).
// Every violation is an error at the offending node's span (or the nearest enclosing one).
#ifndef KILN_COMPILER_SCRIPT_VERIFY_H_
#define KILN_COMPILER_SCRIPT_VERIFY_H_

#include "absl/status/status.h"
#include "compiler/ir/diagnostic.h"
#include "compiler/ir/ir.h"

namespace kiln::script {

// The widest vector a TIR expression, variable or buffer element may have. Wider than any CPU
// register (AVX-512 holds 64 int8 lanes) and 4x VectorizeLoops' own limit.
inline constexpr int kMaxVectorLanes = 256;

// The most dimensions a buffer may have: numpy's NPY_MAXDIMS (the .npy files `kiln run` reads).
inline constexpr int kMaxBufferRank = 64;

// Checks every PrimFunc of `module` (and the names of its exported symbols). Errors go to `diags`
// (may be null); returns INVALID_ARGUMENT with them rendered if there were any.
absl::Status VerifyBuildable(const ir::IRModule& module, ir::DiagnosticList* diags);

}  // namespace kiln::script

#endif  // KILN_COMPILER_SCRIPT_VERIFY_H_
