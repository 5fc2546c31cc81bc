// LowerIntrin: integer floordiv/floormod into cheaper exact forms. Both backends implement
// FloorDiv/FloorMod nodes themselves (floor semantics: the quotient rounds toward -inf, the
// remainder has the divisor's sign), so this pass only rewrites where something cheaper is exact:
//   * unsigned operands: floor and trunc division agree -> Div / Mod;
//   * a dividend provably >= 0 and a constant divisor > 0 -> Div / Mod (truncating C division);
//   * a constant power-of-two divisor 2^k on signed ints -> tirx.shift_right(x, k) (an arithmetic
//     shift) and tirx.bitwise_and(x, 2^k - 1), exact in two's complement.
// Everything else stays FloorDiv/FloorMod. Math intrinsics stay tirx.* calls (the backends map
// them to libm or LLVM intrinsics) and tirx.if_then_else stays (it must stay lazy).
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

int Log2Exact(int64_t v) {
  if (v <= 0 || (v & (v - 1)) != 0) return -1;
  int k = 0;
  while ((int64_t{1} << k) != v) ++k;
  return k;
}

class IntrinLowerer : public StmtExprMutator {
 private:
  PrimExpr Const(DataType t, int64_t v) {
    PrimExpr c = IntImm(t.element_of(), v);
    return t.is_vector() ? PrimExpr(Broadcast(c, t.lanes())) : c;
  }
  // The constant divisor (also through a Broadcast), or 0.
  static int64_t ConstDivisor(const PrimExpr& b) {
    const PrimExpr& s = b.as<BroadcastNode>() ? b.as<BroadcastNode>()->value : b;
    const auto* imm = s.as<IntImmNode>();
    return imm ? imm->value : 0;
  }

  template <bool kMod>
  PrimExpr Lower(const BinaryNode* op) {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    DataType t = op->dtype;
    if (t.is_integer()) {
      int64_t c = ConstDivisor(b);
      bool nonneg = t.is_uint() || (t.is_scalar() && c > 0 && analyzer_.GetConstIntBound(a).min_value >= 0);
      if (nonneg) return kMod ? PrimExpr(Mod(a, b, op->span)) : PrimExpr(Div(a, b, op->span));
      int k = Log2Exact(c);
      if (t.is_int() && k >= 0) {
        if (kMod) return Call(t, Op("tirx.bitwise_and"), {a, Const(t, c - 1)}, op->span);
        return Call(t, Op("tirx.shift_right"), {a, Const(t, k)}, op->span);
      }
    }
    if (a.same_as(op->a) && b.same_as(op->b)) return GetRef<PrimExpr>(op);
    return kMod ? PrimExpr(FloorMod(a, b, op->span)) : PrimExpr(FloorDiv(a, b, op->span));
  }
  PrimExpr VisitExpr_(const FloorDivNode* op) override { return Lower<false>(op); }
  PrimExpr VisitExpr_(const FloorModNode* op) override { return Lower<true>(op); }

  Stmt VisitStmt_(const ForNode* op) override {
    if (op->loop_var.dtype().is_int()) analyzer_.BindRange(op->loop_var, op->min, op->extent);
    return StmtExprMutator::VisitStmt_(op);
  }

  arith::Analyzer analyzer_;
};

}  // namespace

PrimFunc LowerIntrin(const PrimFunc& f) {
  IntrinLowerer l;
  Stmt body = l.VisitStmt(f->body);
  return WithBody(f, body);
}

}  // namespace kiln::tir::transform
