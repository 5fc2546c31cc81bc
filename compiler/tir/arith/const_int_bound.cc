// Const-int-bound analysis: a sound interval for every integer expression. Sound means the
// run-time value, after the dtype's wrap-around, always lies inside: whenever interval arithmetic
// could leave the dtype's range (so the value might wrap), the result is the whole dtype range.
// Intervals are computed in 128 bits so that the arithmetic itself never overflows.
#include <algorithm>

#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/functor.h"

namespace kiln::arith {
namespace {

using namespace ir;  // NOLINT
using Int128 = __int128;

constexpr Int128 kNegInf = ConstIntBound::kNegInf;
constexpr Int128 kPosInf = ConstIntBound::kPosInf;

// An interval with 128-bit ends; the int64 extremes mean "unbounded".
struct Interval {
  Int128 lo = kNegInf, hi = kPosInf;
  bool lo_inf() const { return lo <= kNegInf; }
  bool hi_inf() const { return hi >= kPosInf; }
};

Interval FromBound(ConstIntBound b) { return {b.min_value, b.max_value}; }

Int128 FloorDiv128(Int128 a, Int128 b) {
  Int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

class BoundFunctor : public ExprFunctor<Interval(const PrimExpr&)> {
 public:
  explicit BoundFunctor(const Analyzer* analyzer) : analyzer_(analyzer) {}

  // The interval of `e`, clamped to its dtype (a result outside it means the value may wrap).
  Interval Get(const PrimExpr& e) {
    Interval r = VisitExpr(e);
    ConstIntBound dt = DTypeBound(e.dtype());
    Interval d = FromBound(dt);
    if (r.lo < d.lo || r.hi > d.hi) return d;
    return r;
  }

 private:
  Interval VisitExprDefault_(const Object* op) override {
    const auto* e = static_cast<const PrimExprNode*>(op);
    return FromBound(DTypeBound(e->dtype));
  }
  Interval Dtype(const PrimExprNode* op) { return FromBound(DTypeBound(op->dtype)); }

  Interval VisitExpr_(const IntImmNode* op) override { return {op->value, op->value}; }
  Interval VisitExpr_(const VarNode* op) override {
    auto it = lets_.find(op);
    if (it != lets_.end()) return it->second;
    return FromBound(analyzer_->VarBound(op));
  }
  Interval VisitExpr_(const SizeVarNode* op) override {
    Interval r = FromBound(analyzer_->VarBound(op));
    r.lo = std::max<Int128>(r.lo, 0);
    return r;
  }
  Interval VisitExpr_(const AddNode* op) override {
    if (!op->dtype.is_int_or_bool()) return Dtype(op);
    Interval a = Get(op->a), b = Get(op->b);
    Interval r;
    r.lo = (a.lo_inf() || b.lo_inf()) ? kNegInf : a.lo + b.lo;
    r.hi = (a.hi_inf() || b.hi_inf()) ? kPosInf : a.hi + b.hi;
    return r;
  }
  Interval VisitExpr_(const SubNode* op) override {
    if (!op->dtype.is_int_or_bool()) return Dtype(op);
    Interval a = Get(op->a), b = Get(op->b);
    Interval r;
    r.lo = (a.lo_inf() || b.hi_inf()) ? kNegInf : a.lo - b.hi;
    r.hi = (a.hi_inf() || b.lo_inf()) ? kPosInf : a.hi - b.lo;
    return r;
  }
  Interval VisitExpr_(const MulNode* op) override {
    if (!op->dtype.is_int_or_bool()) return Dtype(op);
    Interval a = Get(op->a), b = Get(op->b);
    if (a.lo_inf() || a.hi_inf() || b.lo_inf() || b.hi_inf()) return Dtype(op);
    Int128 c[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
    return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
  }
  // Division by a divisor of known sign: the extremes are at the corners.
  Interval DivCorners(const Interval& a, const Interval& b, bool floor) {
    auto div = [&](Int128 x, Int128 y) { return floor ? FloorDiv128(x, y) : x / y; };
    Int128 c[4] = {div(a.lo, b.lo), div(a.lo, b.hi), div(a.hi, b.lo), div(a.hi, b.hi)};
    return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
  }
  Interval VisitExpr_(const FloorDivNode* op) override {
    if (!op->dtype.is_int_or_bool()) return Dtype(op);
    Interval a = Get(op->a), b = Get(op->b);
    if (a.lo_inf() || a.hi_inf() || b.lo_inf() || b.hi_inf()) return Dtype(op);
    if (b.lo > 0 || b.hi < 0) return DivCorners(a, b, true);
    return Dtype(op);
  }
  Interval VisitExpr_(const DivNode* op) override {
    if (!op->dtype.is_int_or_bool()) return Dtype(op);
    Interval a = Get(op->a), b = Get(op->b);
    if (a.lo_inf() || a.hi_inf() || b.lo_inf() || b.hi_inf()) return Dtype(op);
    if (b.lo > 0 || b.hi < 0) return DivCorners(a, b, false);
    return Dtype(op);
  }
  Interval VisitExpr_(const FloorModNode* op) override {
    if (!op->dtype.is_int_or_bool()) return Dtype(op);
    Interval a = Get(op->a), b = Get(op->b);
    if (b.lo > 0 && !b.hi_inf()) {
      // The result lies in [0, b - 1]; when a itself lies inside [0, b.lo) it is a.
      if (a.lo >= 0 && !a.hi_inf() && a.hi < b.lo) return a;
      return {0, b.hi - 1};
    }
    return Dtype(op);
  }
  Interval VisitExpr_(const ModNode* op) override {
    if (!op->dtype.is_int_or_bool()) return Dtype(op);
    Interval a = Get(op->a), b = Get(op->b);
    if (b.lo > 0 && !b.hi_inf() && a.lo >= 0) {
      if (!a.hi_inf() && a.hi < b.lo) return a;
      return {0, b.hi - 1};
    }
    return Dtype(op);
  }
  Interval VisitExpr_(const MinNode* op) override {
    if (!op->dtype.is_int_or_bool()) return Dtype(op);
    Interval a = Get(op->a), b = Get(op->b);
    return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
  }
  Interval VisitExpr_(const MaxNode* op) override {
    if (!op->dtype.is_int_or_bool()) return Dtype(op);
    Interval a = Get(op->a), b = Get(op->b);
    return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
  }
  Interval VisitExpr_(const CastNode* op) override {
    if (!op->dtype.is_int_or_bool()) return Dtype(op);
    if (op->dtype.is_bool()) return {0, 1};
    if (!op->value.dtype().is_int_or_bool()) return Dtype(op);
    // Get() clamps: a source range that does not fit the target becomes the target's range. An
    // unbounded end is not a number Get() can compare, though: uint64 values above INT64_MAX are
    // "unbounded" too and wrap negative in int64, so such a range is trusted only when the target
    // holds every value of the source type.
    Interval v = Get(op->value);
    if ((v.lo_inf() || v.hi_inf()) && !Holds(op->dtype, op->value.dtype())) return Dtype(op);
    return v;
  }
  // Whether integer type `to` represents every value of integer (or bool) type `from`.
  static bool Holds(DataType to, DataType from) {
    if (from.is_bool()) return true;
    if (to.is_int() == from.is_int()) return to.bits() >= from.bits();
    return to.is_int() && to.bits() > from.bits();  // signed holds a narrower unsigned
  }
  Interval VisitExpr_(const SelectNode* op) override {
    if (!op->dtype.is_int_or_bool()) return Dtype(op);
    Interval a = Get(op->true_value), b = Get(op->false_value);
    return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
  }
  Interval VisitExpr_(const LetNode* op) override {
    if (op->value.dtype().is_int_or_bool()) lets_[op->var.get()] = Get(op->value);
    Interval r = Get(op->body);
    lets_.erase(op->var.get());
    return r;
  }
  Interval VisitExpr_(const CallNode* op) override {
    if (!op->dtype.is_int_or_bool()) return Dtype(op);
    const auto* o = op->op.as<OpNode>();
    if (o != nullptr && o->name == "tirx.if_then_else" && op->args.size() == 3) {
      Interval a = Get(op->args[1]), b = Get(op->args[2]);
      return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
    }
    if (o != nullptr && o->name == "tirx.bitwise_and" && op->args.size() == 2) {
      // x & c with c >= 0 lies in [0, c].
      for (const PrimExpr& arg : op->args) {
        Interval c = Get(arg);
        if (c.lo >= 0 && !c.hi_inf()) return {0, c.hi};
      }
    }
    return Dtype(op);
  }

  const Analyzer* analyzer_;
  std::unordered_map<const VarNode*, Interval> lets_;
};

int64_t Clamp64(Int128 v) {
  if (v <= kNegInf) return ConstIntBound::kNegInf;
  if (v >= kPosInf) return ConstIntBound::kPosInf;
  return static_cast<int64_t>(v);
}

}  // namespace

ConstIntBound DTypeBound(DataType t) {
  if (!t.is_int_or_bool()) return ConstIntBound::Everything();
  if (t.is_bool()) return {0, 1};
  int bits = t.bits();
  if (t.is_int()) {
    if (bits >= 64) return ConstIntBound::Everything();
    return {-(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1};
  }
  if (bits >= 64) return {0, ConstIntBound::kPosInf};
  return {0, static_cast<int64_t>((uint64_t{1} << bits) - 1)};
}

ConstIntBound Analyzer::VarBound(const VarNode* v) const {
  auto it = bounds_.find(v);
  if (it != bounds_.end()) return it->second.second;
  return DTypeBound(v->dtype);
}

void Analyzer::BindBound(const Var& v, ConstIntBound bound) { bounds_[v.get()] = {v, bound}; }

void Analyzer::BindRange(const Var& v, const PrimExpr& min, const PrimExpr& extent) {
  ConstIntBound lo = GetConstIntBound(min), ext = GetConstIntBound(extent);
  ConstIntBound b;
  b.min_value = lo.min_value;
  if (lo.max_value != ConstIntBound::kPosInf && ext.max_value != ConstIntBound::kPosInf) {
    b.max_value = Clamp64(Int128(lo.max_value) + ext.max_value - 1);
  }
  // A loop never runs with an empty range, so an inverted bound just means "no iterations";
  // keep it well formed.
  if (b.max_value < b.min_value) b.max_value = b.min_value;
  BindBound(v, b);
}

ConstIntBound Analyzer::GetConstIntBound(const PrimExpr& e) {
  BoundFunctor f(this);
  Interval r = f.Get(e);
  return {Clamp64(r.lo), Clamp64(r.hi)};
}

}  // namespace kiln::arith
