// The rewrite simplifier behind Analyzer::Simplify: bottom-up constant folding, the canonical
// linear form for scalar integer sums (sum of coeff * atom + const, like terms collected), and
// local rewrites (x * 1, min/max and comparisons decided by bounds, floordiv/floormod of a linear
// expression by a constant, select/if_then_else on a constant condition, nested casts, ramp and
// broadcast arithmetic). See analyzer.h for how rewrites that hold for exact integers only are
// kept sound under wrap-around.
#include <algorithm>
#include <cmath>
#include <vector>

#include "compiler/ir/structural.h"
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/functor.h"

namespace kiln::arith {
namespace {

using namespace ir;  // NOLINT
using Int128 = __int128;

// Index types: where TVM (and we) assume arithmetic does not overflow.
bool IsIndexType(DataType t) { return t.is_int() && t.is_scalar() && (t.bits() == 32 || t.bits() == 64); }
bool IsScalarInt(DataType t) { return t.is_integer() && t.is_scalar(); }

// Sign-extends the low `bits` of v (the signed view of a wrapped value, used for coefficients).
int64_t SignedView(int64_t v, int bits) {
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (u & (uint64_t{1} << (bits - 1))) u |= ~mask;
  return static_cast<int64_t>(u);
}
int64_t WrapAdd(int64_t a, int64_t b, int bits) {
  return SignedView(static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)), bits);
}
int64_t WrapMul(int64_t a, int64_t b, int bits) {
  return SignedView(static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)), bits);
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t FloorModInt(int64_t a, int64_t b) { return a - FloorDivInt(a, b) * b; }

const IntImmNode* AsInt(const PrimExpr& e) { return e.as<IntImmNode>(); }
const FloatImmNode* AsFloat(const PrimExpr& e) { return e.as<FloatImmNode>(); }
bool IsIntValue(const PrimExpr& e, int64_t v) {
  const auto* i = AsInt(e);
  return i != nullptr && i->value == v;
}
bool IsFloatValue(const PrimExpr& e, double v) {
  const auto* f = AsFloat(e);
  return f != nullptr && f->value == v;
}
// float32/float64 constants fold in their own precision; narrower floats are left alone.
bool FoldableFloat(DataType t) { return t.is_float() && t.is_scalar() && (t.bits() == 32 || t.bits() == 64); }
PrimExpr MakeFloat(DataType t, double v) {
  return FloatImm(t, t.bits() == 32 ? static_cast<double>(static_cast<float>(v)) : v);
}
PrimExpr MakeBool(bool v) { return IntImm(DataType::Bool(), v ? 1 : 0); }

// sum(coeff * atom) + constant, coefficients and constant in the signed view of the dtype width.
struct Linear {
  struct Term {
    PrimExpr atom;
    int64_t coeff;
  };
  DataType dtype;
  std::vector<Term> terms;
  int64_t constant = 0;

  bool is_const() const { return terms.empty(); }
  int bits() const { return dtype.bits(); }
  void AddTerm(const PrimExpr& atom, int64_t coeff) {
    for (Term& t : terms) {
      if (StructuralEqual(t.atom, atom)) {
        t.coeff = WrapAdd(t.coeff, coeff, bits());
        return;
      }
    }
    terms.push_back({atom, SignedView(coeff, bits())});
  }
  void Add(const Linear& o, int64_t scale) {
    for (const Term& t : o.terms) AddTerm(t.atom, WrapMul(t.coeff, scale, bits()));
    constant = WrapAdd(constant, WrapMul(o.constant, scale, bits()), bits());
  }
  void Scale(int64_t s) {
    for (Term& t : terms) t.coeff = WrapMul(t.coeff, s, bits());
    constant = WrapMul(constant, s, bits());
  }
  void DropZeros() {
    std::vector<Term> kept;
    for (Term& t : terms) {
      if (t.coeff != 0) kept.push_back(t);
    }
    terms.swap(kept);
  }
};

class Simplifier : public StmtExprMutator {
 public:
  explicit Simplifier(Analyzer* analyzer) : analyzer_(analyzer) {}

  PrimExpr VisitExpr(const PrimExpr& e) override { return StmtExprMutator::VisitExpr(e); }

 private:
  // ---------------- linear forms ----------------

  // `simplified`: e's non-linear parts are already simplified (they become atoms as they are).
  Linear ToLinear(const PrimExpr& e, bool simplified = false) {
    Linear l;
    l.dtype = e.dtype();
    if (const auto* imm = AsInt(e)) {
      l.constant = SignedView(imm->value, l.bits());
      return l;
    }
    if (const auto* add = e.as<AddNode>()) {
      l = ToLinear(add->a, simplified);
      l.Add(ToLinear(add->b, simplified), 1);
    } else if (const auto* sub = e.as<SubNode>()) {
      l = ToLinear(sub->a, simplified);
      l.Add(ToLinear(sub->b, simplified), -1);
    } else if (const auto* mul = e.as<MulNode>()) {
      Linear a = ToLinear(mul->a, simplified), b = ToLinear(mul->b, simplified);
      if (b.is_const()) {
        a.Scale(b.constant);
        l = a;
      } else if (a.is_const()) {
        b.Scale(a.constant);
        l = b;
      } else {
        l.AddTerm(Mul(FromLinear(a), FromLinear(b)), 1);
      }
    } else {
      PrimExpr s = simplified ? e : VisitExpr(e);
      if (const auto* imm = AsInt(s)) {
        l.constant = SignedView(imm->value, l.bits());
      } else if (!s.same_as(e) && (s.as<AddNode>() || s.as<SubNode>() || s.as<MulNode>())) {
        return ToLinear(s, true);
      } else {
        l.AddTerm(s, 1);
      }
    }
    l.DropZeros();
    return l;
  }

  // Positive terms first (in order of appearance), then the negative ones subtracted, then the
  // constant; "c - x" when every term is negative.
  PrimExpr FromLinear(Linear l) {
    l.DropZeros();
    DataType t = l.dtype;
    auto term = [&](const Linear::Term& x, int64_t c) -> PrimExpr {
      return c == 1 ? x.atom : Mul(x.atom, MakeIntConst(t, c));
    };
    PrimExpr out;
    for (const auto& x : l.terms) {
      if (x.coeff > 0) out = out.defined() ? PrimExpr(Add(out, term(x, x.coeff))) : term(x, x.coeff);
    }
    if (!out.defined()) {
      bool any_negative = !l.terms.empty();
      if (!any_negative || l.constant != 0) {
        out = MakeIntConst(t, l.constant);
        l.constant = 0;
      }
    }
    for (const auto& x : l.terms) {
      if (x.coeff >= 0) continue;
      if (x.coeff == INT64_MIN) {
        out = out.defined() ? PrimExpr(Add(out, term(x, x.coeff))) : term(x, x.coeff);
      } else {
        out = out.defined() ? PrimExpr(Sub(out, term(x, -x.coeff))) : PrimExpr(Sub(MakeIntConst(t, 0), term(x, -x.coeff)));
      }
    }
    if (l.constant > 0 || l.constant == INT64_MIN) {
      out = Add(out, MakeIntConst(t, l.constant));
    } else if (l.constant < 0) {
      out = Sub(out, MakeIntConst(t, -l.constant));
    }
    return out;
  }

  // A bound of a - b (the difference of the two wrapped values, as integers), or Everything().
  // The linear difference d is congruent to a - b modulo 2^bits whatever wraps, and a - b lies in
  // [min a - max b, max a - min b]; when that interval leaves room for only one representative of
  // d's bound, a - b is d. So x + 1 > x is proven only where x + 1 cannot wrap.
  ConstIntBound DiffBound(const PrimExpr& a, const PrimExpr& b) {
    DataType t = a.dtype();
    if (!IsScalarInt(t) || (t.is_uint() && t.bits() >= 64)) return ConstIntBound::Everything();
    Linear d = ToLinear(a, true);
    d.Add(ToLinear(b, true), -1);
    d.DropZeros();
    ConstIntBound dd = d.is_const() ? ConstIntBound::Single(d.constant) : analyzer_->GetConstIntBound(FromLinear(d));
    ConstIntBound ba = analyzer_->GetConstIntBound(a), bb = analyzer_->GetConstIntBound(b);
    Int128 modulus = Int128{1} << t.bits();
    Int128 lo = Int128{ba.min_value} - bb.max_value, hi = Int128{ba.max_value} - bb.min_value;
    if (lo > Int128{dd.max_value} - modulus && hi < Int128{dd.min_value} + modulus) return dd;
    return ConstIntBound::Everything();
  }

  bool NoWrap(const PrimExpr& e) { return analyzer_->CanProveNoWrap(e); }

  // ---------------- arithmetic ----------------

  PrimExpr VisitExpr_(const AddNode* op) override {
    if (IsScalarInt(op->dtype)) return FromLinear(ToLinear(GetRef<PrimExpr>(op)));
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (op->dtype.is_vector()) return VectorArith(0, a, b, op);
    if (FoldableFloat(op->dtype) && AsFloat(a) && AsFloat(b)) return MakeFloat(op->dtype, AsFloat(a)->value + AsFloat(b)->value);
    return Rebuild<Add>(op, a, b);
  }
  PrimExpr VisitExpr_(const SubNode* op) override {
    if (IsScalarInt(op->dtype)) return FromLinear(ToLinear(GetRef<PrimExpr>(op)));
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (op->dtype.is_vector()) return VectorArith(1, a, b, op);
    if (FoldableFloat(op->dtype) && AsFloat(a) && AsFloat(b)) return MakeFloat(op->dtype, AsFloat(a)->value - AsFloat(b)->value);
    // x - 0.0 is x for every float, including -0.0 and NaN.
    if (op->dtype.is_floating() && IsFloatValue(b, 0.0) && !std::signbit(AsFloat(b)->value)) return a;
    return Rebuild<Sub>(op, a, b);
  }
  PrimExpr VisitExpr_(const MulNode* op) override {
    if (IsScalarInt(op->dtype)) return FromLinear(ToLinear(GetRef<PrimExpr>(op)));
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (op->dtype.is_vector()) return VectorArith(2, a, b, op);
    if (FoldableFloat(op->dtype) && AsFloat(a) && AsFloat(b)) return MakeFloat(op->dtype, AsFloat(a)->value * AsFloat(b)->value);
    if (op->dtype.is_floating() && IsFloatValue(b, 1.0)) return a;
    if (op->dtype.is_floating() && IsFloatValue(a, 1.0)) return b;
    return Rebuild<Mul>(op, a, b);
  }

  // Ramp/Broadcast algebra for vector +, -, * (kind 0, 1, 2).
  PrimExpr VectorArith(int kind, const PrimExpr& a, const PrimExpr& b, const BinaryNode* op) {
    auto scalar = [&](const PrimExpr& x, const PrimExpr& y) -> PrimExpr {
      if (kind == 0) return VisitExpr(Add(x, y));
      if (kind == 1) return VisitExpr(Sub(x, y));
      return VisitExpr(Mul(x, y));
    };
    const auto* ba = a.as<BroadcastNode>();
    const auto* bb = b.as<BroadcastNode>();
    const auto* ra = a.as<RampNode>();
    const auto* rb = b.as<RampNode>();
    int lanes = op->dtype.lanes();
    if (ba && bb) return Broadcast(scalar(ba->value, bb->value), lanes);
    if (op->dtype.is_int()) {
      if (kind != 2 && ra && bb) return Ramp(scalar(ra->base, bb->value), ra->stride, lanes);
      if (kind == 0 && ba && rb) return Ramp(scalar(ba->value, rb->base), rb->stride, lanes);
      if (kind == 1 && ba && rb) return Ramp(scalar(ba->value, rb->base), VisitExpr(Sub(MakeIntConst(rb->stride.dtype(), 0), rb->stride)), lanes);
      if (kind != 2 && ra && rb) return Ramp(scalar(ra->base, rb->base), scalar(ra->stride, rb->stride), lanes);
      if (kind == 2 && ra && bb) return Ramp(scalar(ra->base, bb->value), scalar(ra->stride, bb->value), lanes);
      if (kind == 2 && ba && rb) return Ramp(scalar(ba->value, rb->base), scalar(ba->value, rb->stride), lanes);
    }
    if (kind == 0) return Rebuild<Add>(op, a, b);
    if (kind == 1) return Rebuild<Sub>(op, a, b);
    return Rebuild<Mul>(op, a, b);
  }

  // floordiv/floormod of an index expression by a positive constant c: a = c * X + R, so
  // a // c = X + R // c and a % c = R % c, and R // c is a constant when R's bound lies within one
  // multiple of c. Multiples of c in the constant move into X. Undefined when wrapping may break
  // the identity.
  PrimExpr DivByConst(const PrimExpr& a, int64_t c, bool is_mod) {
    DataType t = a.dtype();
    Linear l = ToLinear(a, true);
    Linear x, r;
    x.dtype = r.dtype = t;
    for (const auto& term : l.terms) {
      if (term.coeff % c == 0) {
        x.AddTerm(term.atom, term.coeff / c);
      } else {
        r.AddTerm(term.atom, term.coeff);
      }
    }
    x.constant = FloorDivInt(l.constant, c);
    r.constant = FloorModInt(l.constant, c);
    // The identity holds for the exact integers; it holds for the wrapped values when neither a
    // nor R wraps (the result, at most |a|, fits, so X may wrap on the way).
    if (!NoWrap(FromLinear(l)) || !NoWrap(FromLinear(r))) return PrimExpr();
    ConstIntBound rb = r.is_const() ? ConstIntBound::Single(r.constant) : analyzer_->GetConstIntBound(FromLinear(r));
    if (rb.min_value != ConstIntBound::kNegInf && rb.max_value != ConstIntBound::kPosInf &&
        FloorDivInt(rb.min_value, c) == FloorDivInt(rb.max_value, c)) {
      int64_t q = FloorDivInt(rb.min_value, c);
      if (is_mod) {
        r.constant = WrapAdd(r.constant, WrapMul(-q, c, r.bits()), r.bits());
        return FromLinear(r);
      }
      x.constant = WrapAdd(x.constant, q, x.bits());
      return FromLinear(x);
    }
    PrimExpr cexpr = MakeIntConst(t, c);
    if (is_mod) return FloorMod(FromLinear(r), cexpr);
    PrimExpr div = FloorDiv(FromLinear(r), cexpr);
    x.DropZeros();
    if (x.is_const() && x.constant == 0) return div;
    Linear sum = x;
    sum.AddTerm(div, 1);
    return FromLinear(sum);
  }

  PrimExpr DivMod(const BinaryNode* op, bool is_mod, bool floor) {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    DataType t = op->dtype;
    const auto* ia = AsInt(a);
    const auto* ib = AsInt(b);
    if (IsScalarInt(t) && ib && ib->value != 0) {
      int64_t bv = SignedView(ib->value, t.bits());
      if (ia && t.is_int()) {
        int64_t av = SignedView(ia->value, t.bits());
        if (bv == -1) return MakeIntConst(t, is_mod ? 0 : WrapMul(av, -1, t.bits()));
        if (floor) return MakeIntConst(t, is_mod ? FloorModInt(av, bv) : FloorDivInt(av, bv));
        return MakeIntConst(t, is_mod ? av % bv : av / bv);
      }
      if (ia && t.is_uint()) {
        uint64_t au = static_cast<uint64_t>(ia->value), bu = static_cast<uint64_t>(ib->value);
        return MakeIntConst(t, static_cast<int64_t>(is_mod ? au % bu : au / bu));
      }
      if (bv == 1) return is_mod ? MakeIntConst(t, 0) : a;
      // Trunc and floor division agree on a non-negative dividend.
      if (IsIndexType(t) && bv > 0 && (floor || analyzer_->GetConstIntBound(a).min_value >= 0)) {
        PrimExpr r = DivByConst(a, bv, is_mod);
        if (!r.defined()) return is_mod ? (floor ? Rebuild<FloorMod>(op, a, b) : Rebuild<Mod>(op, a, b))
                                        : (floor ? Rebuild<FloorDiv>(op, a, b) : Rebuild<Div>(op, a, b));
        // Keep the trunc spelling where the remaining division's operand is non-negative.
        if (!floor) {
          const auto* fd = r.as<FloorDivNode>();
          const auto* fm = r.as<FloorModNode>();
          if (fd && analyzer_->GetConstIntBound(fd->a).min_value >= 0) return Div(fd->a, fd->b);
          if (fm && analyzer_->GetConstIntBound(fm->a).min_value >= 0) return Mod(fm->a, fm->b);
        }
        return r;
      }
    }
    if (FoldableFloat(t) && AsFloat(a) && AsFloat(b) && !is_mod && !floor) {
      return MakeFloat(t, AsFloat(a)->value / AsFloat(b)->value);
    }
    if (t.is_floating() && !is_mod && !floor && IsFloatValue(b, 1.0)) return a;
    if (is_mod) return floor ? Rebuild<FloorMod>(op, a, b) : Rebuild<Mod>(op, a, b);
    return floor ? Rebuild<FloorDiv>(op, a, b) : Rebuild<Div>(op, a, b);
  }
  PrimExpr VisitExpr_(const DivNode* op) override { return DivMod(op, false, false); }
  PrimExpr VisitExpr_(const ModNode* op) override { return DivMod(op, true, false); }
  PrimExpr VisitExpr_(const FloorDivNode* op) override { return DivMod(op, false, true); }
  PrimExpr VisitExpr_(const FloorModNode* op) override { return DivMod(op, true, true); }

  // The order relations between a and b that can be proven.
  struct Order {
    bool le = false, lt = false, ge = false, gt = false, eq = false, ne = false;
  };
  Order Compare(const PrimExpr& a, const PrimExpr& b) {
    Order o;
    DataType t = a.dtype();
    if (!IsScalarInt(t) && !t.is_bool()) return o;
    ConstIntBound d;
    if (StructuralEqual(a, b)) {
      d = ConstIntBound::Single(0);
    } else {
      d = DiffBound(a, b);
    }
    // Always sound, whatever the width: compare the bounds of the two sides.
    ConstIntBound ba = analyzer_->GetConstIntBound(a), bb = analyzer_->GetConstIntBound(b);
    auto finite = [](int64_t v) { return v != ConstIntBound::kNegInf && v != ConstIntBound::kPosInf; };
    if (finite(ba.max_value) && finite(bb.min_value)) {
      if (ba.max_value <= bb.min_value) o.le = true;
      if (ba.max_value < bb.min_value) o.lt = true;
    }
    if (finite(ba.min_value) && finite(bb.max_value)) {
      if (ba.min_value >= bb.max_value) o.ge = true;
      if (ba.min_value > bb.max_value) o.gt = true;
    }
    if (d.max_value != ConstIntBound::kPosInf && d.max_value <= 0) o.le = true;
    if (d.max_value != ConstIntBound::kPosInf && d.max_value < 0) o.lt = true;
    if (d.min_value != ConstIntBound::kNegInf && d.min_value >= 0) o.ge = true;
    if (d.min_value != ConstIntBound::kNegInf && d.min_value > 0) o.gt = true;
    o.eq = o.le && o.ge;
    o.ne = o.lt || o.gt;
    return o;
  }

  PrimExpr MinMax(const BinaryNode* op, bool is_min) {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    DataType t = op->dtype;
    if (IsScalarInt(t) && AsInt(a) && AsInt(b)) {
      int64_t av = AsInt(a)->value, bv = AsInt(b)->value;
      if (t.is_uint()) {
        uint64_t au = av, bu = bv;
        return MakeIntConst(t, static_cast<int64_t>(is_min ? std::min(au, bu) : std::max(au, bu)));
      }
      return MakeIntConst(t, is_min ? std::min(av, bv) : std::max(av, bv));
    }
    if (FoldableFloat(t) && AsFloat(a) && AsFloat(b)) {
      double av = AsFloat(a)->value, bv = AsFloat(b)->value;
      // The backends compute min(a, b) as a < b ? a : b; fold the same way.
      return MakeFloat(t, is_min ? (av < bv ? av : bv) : (av > bv ? av : bv));
    }
    if (IsScalarInt(t)) {
      Order o = Compare(a, b);
      if (o.le) return is_min ? a : b;
      if (o.ge) return is_min ? b : a;
    }
    return is_min ? Rebuild<Min>(op, a, b) : Rebuild<Max>(op, a, b);
  }
  PrimExpr VisitExpr_(const MinNode* op) override { return MinMax(op, true); }
  PrimExpr VisitExpr_(const MaxNode* op) override { return MinMax(op, false); }

  enum class Cmp { kEQ, kNE, kLT, kLE, kGT, kGE };
  template <typename T>
  PrimExpr Comparison(const BinaryNode* op, Cmp cmp) {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    DataType t = a.dtype();
    if (t.is_scalar() && AsInt(a) && AsInt(b)) {
      int64_t av = AsInt(a)->value, bv = AsInt(b)->value;
      bool r;
      if (t.is_uint() && t.bits() == 64) {
        uint64_t au = av, bu = bv;
        r = cmp == Cmp::kEQ ? au == bu : cmp == Cmp::kNE ? au != bu : cmp == Cmp::kLT ? au < bu
          : cmp == Cmp::kLE ? au <= bu : cmp == Cmp::kGT ? au > bu : au >= bu;
      } else {
        r = cmp == Cmp::kEQ ? av == bv : cmp == Cmp::kNE ? av != bv : cmp == Cmp::kLT ? av < bv
          : cmp == Cmp::kLE ? av <= bv : cmp == Cmp::kGT ? av > bv : av >= bv;
      }
      return MakeBool(r);
    }
    if (t.is_scalar() && AsFloat(a) && AsFloat(b)) {
      double av = AsFloat(a)->value, bv = AsFloat(b)->value;
      bool r = cmp == Cmp::kEQ ? av == bv : cmp == Cmp::kNE ? av != bv : cmp == Cmp::kLT ? av < bv
             : cmp == Cmp::kLE ? av <= bv : cmp == Cmp::kGT ? av > bv : av >= bv;
      return MakeBool(r);
    }
    if (t.is_scalar() && t.is_int_or_bool()) {
      Order o = Compare(a, b);
      switch (cmp) {
        case Cmp::kEQ: if (o.eq) return MakeBool(true); if (o.ne) return MakeBool(false); break;
        case Cmp::kNE: if (o.ne) return MakeBool(true); if (o.eq) return MakeBool(false); break;
        case Cmp::kLT: if (o.lt) return MakeBool(true); if (o.ge) return MakeBool(false); break;
        case Cmp::kLE: if (o.le) return MakeBool(true); if (o.gt) return MakeBool(false); break;
        case Cmp::kGT: if (o.gt) return MakeBool(true); if (o.le) return MakeBool(false); break;
        case Cmp::kGE: if (o.ge) return MakeBool(true); if (o.lt) return MakeBool(false); break;
      }
    }
    return Rebuild<T>(op, a, b);
  }
  PrimExpr VisitExpr_(const EQNode* op) override { return Comparison<EQ>(op, Cmp::kEQ); }
  PrimExpr VisitExpr_(const NENode* op) override { return Comparison<NE>(op, Cmp::kNE); }
  PrimExpr VisitExpr_(const LTNode* op) override { return Comparison<LT>(op, Cmp::kLT); }
  PrimExpr VisitExpr_(const LENode* op) override { return Comparison<LE>(op, Cmp::kLE); }
  PrimExpr VisitExpr_(const GTNode* op) override { return Comparison<GT>(op, Cmp::kGT); }
  PrimExpr VisitExpr_(const GENode* op) override { return Comparison<GE>(op, Cmp::kGE); }

  PrimExpr VisitExpr_(const AndNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (op->dtype.is_scalar()) {
      if (IsIntValue(a, 0) || IsIntValue(b, 0)) return MakeBool(false);
      if (AsInt(a)) return b;
      if (AsInt(b)) return a;
    }
    return Rebuild<And>(op, a, b);
  }
  PrimExpr VisitExpr_(const OrNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (op->dtype.is_scalar()) {
      if ((AsInt(a) && !IsIntValue(a, 0)) || (AsInt(b) && !IsIntValue(b, 0))) return MakeBool(true);
      if (AsInt(a)) return b;
      if (AsInt(b)) return a;
    }
    return Rebuild<Or>(op, a, b);
  }
  PrimExpr VisitExpr_(const NotNode* op) override {
    PrimExpr a = VisitExpr(op->a);
    if (const auto* imm = AsInt(a)) return MakeBool(imm->value == 0);
    if (const auto* n = a.as<NotNode>()) return n->a;
    // Negating an integer comparison flips it (not valid for floats: NaN compares false both ways).
    auto int_operands = [](const BinaryNode* c) { return c->a.dtype().is_int_or_bool(); };
    if (const auto* c = a.as<LTNode>(); c && int_operands(c)) return GE(c->a, c->b);
    if (const auto* c = a.as<LENode>(); c && int_operands(c)) return GT(c->a, c->b);
    if (const auto* c = a.as<GTNode>(); c && int_operands(c)) return LE(c->a, c->b);
    if (const auto* c = a.as<GENode>(); c && int_operands(c)) return LT(c->a, c->b);
    if (const auto* c = a.as<EQNode>(); c && int_operands(c)) return NE(c->a, c->b);
    if (const auto* c = a.as<NENode>(); c && int_operands(c)) return EQ(c->a, c->b);
    if (a.same_as(op->a)) return GetRef<PrimExpr>(op);
    return Not(a, op->span);
  }

  PrimExpr VisitExpr_(const SelectNode* op) override {
    PrimExpr c = VisitExpr(op->condition);
    if (const auto* imm = AsInt(c)) {
      return VisitExpr(imm->value ? op->true_value : op->false_value);
    }
    PrimExpr t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
    if (StructuralEqual(t, f)) return t;
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
      return GetRef<PrimExpr>(op);
    }
    return Select(c, t, f, op->span);
  }

  PrimExpr VisitExpr_(const CallNode* op) override {
    const auto* o = op->op.as<OpNode>();
    if (o != nullptr && o->name == "tirx.if_then_else" && op->args.size() == 3) {
      PrimExpr c = VisitExpr(op->args[0]);
      if (const auto* imm = AsInt(c); imm && c.dtype().is_scalar()) {
        return VisitExpr(imm->value ? op->args[1] : op->args[2]);
      }
    }
    return StmtExprMutator::VisitExpr_(op);
  }

  PrimExpr VisitExpr_(const CastNode* op) override {
    PrimExpr v = VisitExpr(op->value);
    DataType to = op->dtype, from = v.dtype();
    if (to == from) return v;
    if (to.is_scalar()) {
      if (const auto* imm = AsInt(v)) {
        if (to.is_int_or_bool()) {
          if (to.is_bool()) return MakeBool(imm->value != 0);
          return MakeIntConst(to, imm->value);
        }
        if (FoldableFloat(to) && !(from.is_uint() && from.bits() == 64 && imm->value < 0)) {
          return MakeFloat(to, static_cast<double>(imm->value));
        }
      }
      if (const auto* f = AsFloat(v); f && FoldableFloat(to)) return MakeFloat(to, f->value);
      if (const auto* inner = v.as<CastNode>()) {
        DataType mid = inner->dtype, src = inner->value.dtype();
        // int -> wider-or-equal int -> back: the round trip is the identity.
        if (src == to && to.is_integer() && mid.is_integer() && mid.bits() >= to.bits()) return inner->value;
        // Widening chains of signed ints: one sign extension is enough.
        if (src.is_int() && mid.is_int() && to.is_int() && src.bits() <= mid.bits() && mid.bits() <= to.bits()) {
          return Cast(to, inner->value, op->span);
        }
      }
    }
    if (v.same_as(op->value)) return GetRef<PrimExpr>(op);
    return Cast(to, v, op->span);
  }

  PrimExpr VisitExpr_(const RampNode* op) override {
    PrimExpr base = VisitExpr(op->base), stride = VisitExpr(op->stride);
    if (IsIntValue(stride, 0)) return Broadcast(base, op->lanes, op->span);
    if (base.same_as(op->base) && stride.same_as(op->stride)) return GetRef<PrimExpr>(op);
    return Ramp(base, stride, op->lanes, op->span);
  }

  template <typename T>
  PrimExpr Rebuild(const BinaryNode* op, const PrimExpr& a, const PrimExpr& b) {
    if (a.same_as(op->a) && b.same_as(op->b)) return GetRef<PrimExpr>(op);
    return T(a, b, op->span);
  }

  Analyzer* analyzer_;
};

}  // namespace

int64_t WrapToDType(int64_t v, DataType t) {
  if (!t.is_int_or_bool() || t.bits() >= 64) return v;
  if (t.is_int()) return SignedView(v, t.bits());
  return static_cast<int64_t>(static_cast<uint64_t>(v) & ((uint64_t{1} << t.bits()) - 1));
}

PrimExpr MakeIntConst(DataType t, int64_t v) { return IntImm(t, WrapToDType(v, t)); }

PrimExpr Analyzer::Simplify(const PrimExpr& e) {
  Simplifier s(this);
  return s.VisitExpr(e);
}

bool Analyzer::CanProve(const PrimExpr& cond) {
  // Keep the simplified expression alive while its node is read (a fresh IntImm otherwise dies
  // with the temporary).
  PrimExpr simplified = Simplify(cond);
  const auto* imm = simplified.as<IntImmNode>();
  return imm != nullptr && imm->value != 0;
}

bool Analyzer::CanProveNoWrap(const PrimExpr& e) {
  const BinaryNode* op = e.as<AddNode>();
  if (op == nullptr) op = e.as<SubNode>();
  if (op == nullptr) op = e.as<MulNode>();
  if (op == nullptr) return true;
  if (!IsScalarInt(e.dtype()) || (e.dtype().is_uint() && e.dtype().bits() >= 64)) return false;
  if (!CanProveNoWrap(op->a) || !CanProveNoWrap(op->b)) return false;
  ConstIntBound a = GetConstIntBound(op->a), b = GetConstIntBound(op->b);
  Int128 lo, hi;
  if (e.as<AddNode>()) {
    lo = Int128{a.min_value} + b.min_value;
    hi = Int128{a.max_value} + b.max_value;
  } else if (e.as<SubNode>()) {
    lo = Int128{a.min_value} - b.max_value;
    hi = Int128{a.max_value} - b.min_value;
  } else {
    Int128 c[4] = {Int128{a.min_value} * b.min_value, Int128{a.min_value} * b.max_value,
                   Int128{a.max_value} * b.min_value, Int128{a.max_value} * b.max_value};
    lo = *std::min_element(c, c + 4);
    hi = *std::max_element(c, c + 4);
  }
  ConstIntBound dt = DTypeBound(e.dtype());
  return lo >= dt.min_value && hi <= dt.max_value;
}

bool Analyzer::CanProveEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a.dtype() != b.dtype()) return false;
  return CanProve(EQ(a, b));
}

}  // namespace kiln::arith
