// Integer (and a little float) arithmetic analysis for the TIR lowering passes.
//
// The Analyzer answers two questions the passes keep asking:
//   * "what is this expression, written as simply as possible?" (Simplify), so that flattened
//     indices read `i * 16 + j` rather than a tower of casts and zeros, and
//   * "is this condition always true here?" (CanProve), so that guards, init conditions and
//     divisions can be resolved at compile time.
//
// It has three parts:
//   1. Constant folding with the dtype's semantics: integers wrap to their width (two's complement
//      for intN, modulo 2^N for uintN), as TIR and the backends do; float32/float64 fold in their
//      own precision (float16/bfloat16 are not folded).
//   2. A canonical linear form for scalar integer expressions: sum(coeff * atom) + const, with like
//      terms collected (simplify.cc). Collection is exact in wrap-around arithmetic (it is ring
//      arithmetic modulo 2^N), so it applies to every integer width.
//   3. Const-int-bound analysis: a sound [min, max] for an integer expression given the ranges of
//      the variables in scope (loop variables bound by BindRange), used to prove comparisons,
//      resolve min/max and remove floordiv/floormod.
//
// Every rewrite is sound for wrap-around arithmetic, as the TIR spec defines integer operations
// (two's complement at the dtype's width; index arithmetic is no exception). Rewrites that hold
// for exact integers only are applied where the bounds prove nothing wraps: comparisons and
// min/max decided from the difference of their operands (any integer width), and floordiv /
// floormod of a linear expression by a constant (int32 and int64, the index types). So
// max(x + 1, x) folds when x's range keeps x + 1 from wrapping, and stays as written otherwise.
//
// An Analyzer is cheap and not thread-safe; make one per pass invocation.
#ifndef KILN_COMPILER_TIR_ARITH_ANALYZER_H_
#define KILN_COMPILER_TIR_ARITH_ANALYZER_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

#include "compiler/ir/tir.h"

namespace kiln::arith {

// A closed interval [min_value, max_value]; kNegInf/kPosInf stand for "unbounded".
struct ConstIntBound {
  static constexpr int64_t kNegInf = INT64_MIN;
  static constexpr int64_t kPosInf = INT64_MAX;
  int64_t min_value = kNegInf;
  int64_t max_value = kPosInf;

  static ConstIntBound Everything() { return {}; }
  static ConstIntBound Single(int64_t v) { return {v, v}; }
  bool is_const() const { return min_value == max_value; }
  bool operator==(const ConstIntBound& o) const {
    return min_value == o.min_value && max_value == o.max_value;
  }
};

// The range of values of an integer (or bool) dtype; Everything() for other dtypes.
ConstIntBound DTypeBound(ir::DataType t);

// `v` reduced to the width of integer dtype `t` (wrapped), as an int64 bit pattern for uint64.
int64_t WrapToDType(int64_t v, ir::DataType t);

// Builds an IntImm of dtype `t` holding WrapToDType(v, t).
ir::PrimExpr MakeIntConst(ir::DataType t, int64_t v);

// A compact infix rendering of an expression for error messages and test expectations:
// "i * 16 + j", "floordiv(x, 8)", "min(a, b)", "int64(n)", "A[i]", "ramp(b, 1, 4)", "x < 4".
// Integer literals print bare; other literals print with their dtype when it is not the default
// (int32 / float32 / bool): "int64(3)", "float16(0.5)".
std::string ExprToString(const ir::PrimExpr& e);

class Analyzer {
 public:
  // Records that `v` takes values in [min, min + extent) (a loop variable). Only constant parts
  // are used: a symbolic min or extent contributes its own const bound.
  void BindRange(const ir::Var& v, const ir::PrimExpr& min, const ir::PrimExpr& extent);
  // Records a bound for `v` directly (e.g. the bound of a let-bound value).
  void BindBound(const ir::Var& v, ConstIntBound bound);

  ConstIntBound GetConstIntBound(const ir::PrimExpr& e);
  ir::PrimExpr Simplify(const ir::PrimExpr& e);
  // True when `cond` (a bool expression) simplifies to the constant true.
  bool CanProve(const ir::PrimExpr& cond);
  // True when the integer expressions are provably equal.
  bool CanProveEqual(const ir::PrimExpr& a, const ir::PrimExpr& b);
  // True when evaluating e's +, - and * (its linear skeleton; other nodes count as opaque values)
  // provably never wraps, so that e's value is the exact integer value of that skeleton.
  bool CanProveNoWrap(const ir::PrimExpr& e);

  // The recorded bound of a variable, or its dtype's range.
  ConstIntBound VarBound(const ir::VarNode* v) const;

 private:
  // Keyed by node; the Var is kept alive alongside its bound.
  std::unordered_map<const ir::VarNode*, std::pair<ir::Var, ConstIntBound>> bounds_;
};

}  // namespace kiln::arith

#endif  // KILN_COMPILER_TIR_ARITH_ANALYZER_H_
