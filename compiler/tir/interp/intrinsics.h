// The TIR intrinsics whose result depends only on their (already evaluated) arguments: the math
// ops of compiler/tir/op (exp, log, sqrt, rsqrt, sigmoid, pow, ...), bitwise ops and shifts,
// popcount/clz, isnan/isinf/isfinite, reinterpret, q_multiply_shift, vector halves, and the C math
// library functions that T.call_extern / T.call_pure_extern may name. The interpreter handles the
// intrinsics that control evaluation or touch memory (if_then_else, ret, address_of, ...) itself.
#ifndef KILN_COMPILER_TIR_INTERP_INTRINSICS_H_
#define KILN_COMPILER_TIR_INTERP_INTRINSICS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/tir/interp/value.h"

namespace kiln::tir::interp {

// Evaluates intrinsic `name` (without the "tirx." prefix) of result dtype `dtype` on `args`.
// Returns NOT_FOUND if `name` is not one of the pure intrinsics handled here (the caller then
// tries its own), UNIMPLEMENTED for an unsupported dtype, OUT_OF_RANGE for a shift by the bit
// width or more (undefined behaviour).
absl::Status EvalPureIntrinsic(const std::string& name, ir::DataType dtype, const std::vector<Value>& args,
                               Value* out);

// T.call_extern(dtype, "callee", args...) for the C math library ("expf", "sqrt", "fabsf", ...).
// UNIMPLEMENTED names the callee if it is not one of them.
absl::Status EvalExternCall(const std::string& callee, ir::DataType dtype, const std::vector<Value>& args,
                            Value* out);

}  // namespace kiln::tir::interp

#endif  // KILN_COMPILER_TIR_INTERP_INTRINSICS_H_
