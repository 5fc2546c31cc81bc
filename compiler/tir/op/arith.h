// Arithmetic on PrimExprs with the implicit conversions TVMScript applies when it evaluates
// `a + b`, `a < b`, `a and b`, ... so that the parser builds exactly the nodes TVM builds:
//
//   * A Python int/float literal has no dtype of its own: it adopts the other operand's dtype
//     (`x_f16 + 1` is float16; `i64 < 8` compares int64). A float literal next to an integer
//     expression is float32 and the integer side is cast to it.
//   * int vs float: the integer side is cast to the float type.
//   * int vs int (or uint vs uint) of different widths: the narrower side is cast to the wider.
//   * float vs float of different widths, int vs uint, and handles: errors ("mismatched types").
//   * A scalar next to a vector is broadcast to the vector's lanes; two vectors must agree.
//
// Casts of immediates are folded (cast(int64, 1) is IntImm(int64, 1)), like TVM's cast(), and
// the arithmetic operators fold as TVM's operator functions do (see BinaryOp). Nothing else is
// simplified.
#ifndef KILN_COMPILER_TIR_OP_ARITH_H_
#define KILN_COMPILER_TIR_OP_ARITH_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/ir/tir.h"

namespace kiln::tir {

enum class BinaryOpKind {
  kAdd, kSub, kMul, kDiv, kMod, kFloorDiv, kFloorMod, kMin, kMax,
  kEQ, kNE, kLT, kLE, kGT, kGE, kAnd, kOr,
};

// The TVMScript spelling of the operator ("+", "floordiv", "and", ...) for messages.
const char* BinaryOpName(BinaryOpKind kind);

// One operand of a binary operator: an IR expression, or a Python literal still without a dtype.
class Operand {
 public:
  Operand(ir::PrimExpr expr) : expr_(std::move(expr)) {}  // NOLINT: implicit by design
  static Operand IntLiteral(int64_t value, ir::Span span = {});
  static Operand FloatLiteral(double value, ir::Span span = {});
  static Operand BoolLiteral(bool value, ir::Span span = {});

  enum class Kind { kExpr, kInt, kFloat, kBool };
  Kind kind() const { return kind_; }
  bool is_literal() const { return kind_ != Kind::kExpr; }
  const ir::PrimExpr& expr() const { return expr_; }
  int64_t int_value() const { return int_value_; }
  double float_value() const { return float_value_; }
  const ir::Span& span() const { return span_; }

  // The expression this operand becomes on its own: a literal takes Python's default dtype
  // (int32, or int64 if it does not fit; float32; bool).
  ir::PrimExpr Materialize() const;

 private:
  Operand() = default;
  Kind kind_ = Kind::kExpr;
  ir::PrimExpr expr_;
  int64_t int_value_ = 0;
  double float_value_ = 0;
  ir::Span span_;
};

// `a <kind> b` as TVMScript evaluates the operator (`a + b`, `a // b`, T.floordiv, T.min, ...):
// the implicit conversions above, then the constant folding of TVM's operator functions
// (immediates are computed, x + 0, x * 1, x // 1, min(x, x), ... return an operand; comparisons
// and and/or are never folded). Errors are INVALID_ARGUMENT with a message such as
// "mismatched types: float32 vs int32", "and expects bool operands, got int32" or
// "division by zero".
absl::StatusOr<ir::PrimExpr> BinaryOp(BinaryOpKind kind, const Operand& a, const Operand& b,
                                      ir::Span span = {});

// Whether TVM's operator function for `kind` (add, floordiv, less, ...) would not return the node
// `a <kind> b` as it is (it folds, or fails). The printer then spells the node with its
// constructor (T.Add(a, b)) so that it re-parses unchanged. a and b have one dtype.
bool OperatorFolds(BinaryOpKind kind, const ir::PrimExpr& a, const ir::PrimExpr& b);

// The node constructor (T.Add(a, b), T.FloorDiv(a, b), ...): the same conversions, no folding.
absl::StatusOr<ir::PrimExpr> MakeBinaryNode(BinaryOpKind kind, const Operand& a, const Operand& b,
                                            ir::Span span = {});

// Converts both operands to one dtype (the rules above) without building a node.
absl::Status MatchTypes(const Operand& a, const Operand& b, ir::PrimExpr* out_a, ir::PrimExpr* out_b);

// An expression of dtype `dtype` holding literal `value` (IntImm, FloatImm, or a Broadcast of one
// for vector dtypes). Fails when the value does not fit (e.g. 300 as int8) or dtype is a handle.
absl::StatusOr<ir::PrimExpr> MakeConst(ir::DataType dtype, const Operand& literal, ir::Span span = {});

// cast(dtype, value) as TVM does it: no-op if equal, folds immediates, broadcasts a scalar to a
// vector dtype. Fails if the lanes would change otherwise.
absl::StatusOr<ir::PrimExpr> CastTo(ir::DataType dtype, const ir::PrimExpr& value, ir::Span span = {});

// -x (0 - x for expressions; negated immediates fold).
absl::StatusOr<ir::PrimExpr> Negate(const Operand& x, ir::Span span = {});

// T.max_value / T.min_value / T.infinity of `dtype` ("max_value", "min_value" or "infinity"):
// the largest and smallest finite values, and +inf for floats (the integer maximum for integers).
absl::StatusOr<ir::PrimExpr> LimitValue(const std::string& which, ir::DataType dtype, ir::Span span = {});
// not x: x must be bool (a literal becomes a bool constant).
absl::StatusOr<ir::PrimExpr> LogicalNot(const Operand& x, ir::Span span = {});

// T.Select(cond, t, f): cond must be bool; literals adopt the other branch's dtype, but two
// expressions of different dtypes are an error (TVM does not promote here).
absl::StatusOr<ir::PrimExpr> MakeSelect(const Operand& cond, const Operand& t, const Operand& f,
                                        ir::Span span = {});

// Scalable vector lanes. TVM writes vscale * factor lanes as the expression T.vscale() * factor
// (a Ramp's or Broadcast's lanes, a slice's extent); kiln's IR keeps the encoded lane count -factor
// (see ir::DataType). VScaleLanes builds that expression as TVM's printer shows it;
// MatchVScaleLanes reads `k * T.vscale()` or `T.vscale() * k` back as k (nullopt otherwise).
ir::PrimExpr VScaleLanes(int factor);
std::optional<int64_t> MatchVScaleLanes(const ir::PrimExpr& lanes);
// The encoded lane count of a Ramp/Broadcast lanes argument: a constant in 1..32767, or
// T.vscale() * k with k in 2..32767 (giving -k). Errors begin with `what` ("T.Ramp").
absl::StatusOr<int> EncodedLanes(const ir::PrimExpr& lanes, const std::string& what);

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_OP_ARITH_H_
