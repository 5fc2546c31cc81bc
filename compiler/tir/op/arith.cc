// Implicit conversions of TVMScript arithmetic (see arith.h for the rules).
#include "compiler/tir/op/arith.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace kiln::tir {

using ir::DataType;
using ir::PrimExpr;
using ir::Span;

const char* BinaryOpName(BinaryOpKind kind) {
  switch (kind) {
    case BinaryOpKind::kAdd: return "+";
    case BinaryOpKind::kSub: return "-";
    case BinaryOpKind::kMul: return "*";
    case BinaryOpKind::kDiv: return "/";
    case BinaryOpKind::kMod: return "truncmod";
    case BinaryOpKind::kFloorDiv: return "//";
    case BinaryOpKind::kFloorMod: return "%";
    case BinaryOpKind::kMin: return "min";
    case BinaryOpKind::kMax: return "max";
    case BinaryOpKind::kEQ: return "==";
    case BinaryOpKind::kNE: return "!=";
    case BinaryOpKind::kLT: return "<";
    case BinaryOpKind::kLE: return "<=";
    case BinaryOpKind::kGT: return ">";
    case BinaryOpKind::kGE: return ">=";
    case BinaryOpKind::kAnd: return "and";
    case BinaryOpKind::kOr: return "or";
  }
  return "?";
}

Operand Operand::IntLiteral(int64_t value, Span span) {
  Operand o;
  o.kind_ = Kind::kInt;
  o.int_value_ = value;
  o.span_ = std::move(span);
  return o;
}
Operand Operand::FloatLiteral(double value, Span span) {
  Operand o;
  o.kind_ = Kind::kFloat;
  o.float_value_ = value;
  o.span_ = std::move(span);
  return o;
}
Operand Operand::BoolLiteral(bool value, Span span) {
  Operand o;
  o.kind_ = Kind::kBool;
  o.int_value_ = value ? 1 : 0;
  o.span_ = std::move(span);
  return o;
}

PrimExpr Operand::Materialize() const {
  switch (kind_) {
    case Kind::kExpr: return expr_;
    case Kind::kInt: {
      bool fits32 = int_value_ >= std::numeric_limits<int32_t>::min() &&
                    int_value_ <= std::numeric_limits<int32_t>::max();
      return ir::IntImm(DataType::Int(fits32 ? 32 : 64), int_value_, span_);
    }
    case Kind::kFloat: return ir::FloatImm(DataType::Float(32), float_value_, span_);
    case Kind::kBool: return ir::IntImm(DataType::Bool(), int_value_, span_);
  }
  return expr_;
}

namespace {

std::string LiteralText(const Operand& o) {
  switch (o.kind()) {
    case Operand::Kind::kInt: return absl::StrCat(o.int_value());
    case Operand::Kind::kFloat: return absl::StrCat(o.float_value());
    case Operand::Kind::kBool: return o.int_value() ? "True" : "False";
    case Operand::Kind::kExpr: break;
  }
  return "expression";
}

// Whether integer `v` is representable in the scalar integer/bool dtype `t`.
bool IntFits(DataType t, int64_t v) {
  if (t.is_bool()) return v == 0 || v == 1;
  if (t.bits() >= 64) return t.is_int() || v >= 0;
  if (t.is_int()) {
    int64_t lim = int64_t{1} << (t.bits() - 1);
    return v >= -lim && v < lim;
  }
  return v >= 0 && v < (int64_t{1} << t.bits());
}

absl::Status Mismatch(DataType a, DataType b) {
  return absl::InvalidArgumentError(
      absl::StrCat("mismatched types: ", a.ToString(), " vs ", b.ToString()));
}

// The element dtype both sides convert to, or an error.
absl::StatusOr<DataType> CommonElementType(DataType a, DataType b) {
  DataType ea = a.element_of(), eb = b.element_of();
  if (ea == eb) {
    if (ea.is_handle() || ea.is_void()) return Mismatch(a, b);
    return ea;
  }
  if (!ea.is_numeric() || !eb.is_numeric()) return Mismatch(a, b);
  // TVM's BinaryOpMatchTypes promotion: IEEE floats widen to the wider one; a float beats any
  // other kind; among the narrow float formats the one present wins; bool yields to an integer;
  // same-signedness integers widen; int vs uint takes the wider, or the unsigned at equal width.
  if (ea.is_float() && eb.is_float()) return ea.bits() >= eb.bits() ? ea : eb;
  if (ea.is_float() != eb.is_float()) return ea.is_float() ? ea : eb;
  if (ea.is_floating() || eb.is_floating()) {
    if (ea.is_floating() && eb.is_floating()) return Mismatch(a, b);  // two narrow formats
    return ea.is_floating() ? ea : eb;
  }
  if (ea.is_bool() || eb.is_bool()) return ea.is_bool() ? eb : ea;
  if (ea.is_int() == eb.is_int()) return ea.bits() >= eb.bits() ? ea : eb;
  if (ea.bits() != eb.bits()) return ea.bits() > eb.bits() ? ea : eb;
  return ea.is_uint() ? ea : eb;
}

// A literal adopting dtype `t` (used when the other side is an expression).
absl::StatusOr<PrimExpr> Adopt(const Operand& lit, DataType t) {
  // A float literal next to an integer expression does not truncate: it stays float32 and the
  // expression is converted instead.
  if (lit.kind() == Operand::Kind::kFloat && !t.is_floating()) return lit.Materialize();
  return MakeConst(t, lit, lit.span());
}

}  // namespace

absl::StatusOr<PrimExpr> MakeConst(DataType dtype, const Operand& literal, Span span) {
  if (!literal.is_literal()) return CastTo(dtype, literal.expr(), span);
  DataType elem = dtype.element_of();
  if (!elem.is_numeric()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot use literal ", LiteralText(literal), " as ", dtype.ToString()));
  }
  PrimExpr scalar;
  if (literal.kind() == Operand::Kind::kFloat) {
    if (!elem.is_floating()) {
      return absl::InvalidArgumentError(absl::StrCat("cannot use float literal ", LiteralText(literal),
                                                     " as ", dtype.ToString()));
    }
    scalar = ir::FloatImm(elem, literal.float_value(), span);
  } else if (elem.is_floating()) {
    scalar = ir::FloatImm(elem, static_cast<double>(literal.int_value()), span);
  } else {
    if (!IntFits(elem, literal.int_value())) {
      return absl::InvalidArgumentError(absl::StrCat("literal value ", LiteralText(literal),
                                                     " does not fit in ", elem.ToString()));
    }
    scalar = ir::IntImm(elem, literal.int_value(), span);
  }
  if (dtype.is_vector()) return PrimExpr(ir::Broadcast(scalar, dtype.lanes(), span));
  return scalar;
}

absl::StatusOr<PrimExpr> CastTo(DataType dtype, const PrimExpr& value, Span span) {
  DataType from = value.dtype();
  if (from == dtype) return value;
  if (from.lanes() != dtype.lanes()) {
    if (from.lanes() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("cannot cast ", from.ToString(), " to ",
                                                     dtype.ToString(), ": lane counts differ"));
    }
    absl::StatusOr<PrimExpr> elem = CastTo(dtype.element_of(), value, span);
    if (!elem.ok()) return elem.status();
    return PrimExpr(ir::Broadcast(*elem, dtype.lanes(), span));
  }
  if (dtype.is_numeric()) {
    if (const auto* imm = value.as<ir::IntImmNode>()) {
      if (dtype.is_floating() || IntFits(dtype, imm->value)) {
        return MakeConst(dtype, Operand::IntLiteral(imm->value), value->span);
      }
    } else if (const auto* fimm = value.as<ir::FloatImmNode>()) {
      if (dtype.is_floating()) return MakeConst(dtype, Operand::FloatLiteral(fimm->value), value->span);
    }
  }
  return PrimExpr(ir::Cast(dtype, value, span));
}

PrimExpr VScaleLanes(int factor) {
  PrimExpr vscale = ir::Call(DataType::Int(32), ir::Op("tirx.vscale"), {});
  return ir::Mul(vscale, ir::IntImm(DataType::Int(32), factor));
}

std::optional<int64_t> MatchVScaleLanes(const PrimExpr& lanes) {
  auto is_vscale = [](const PrimExpr& e) {
    const auto* call = e.as<ir::CallNode>();
    const auto* op = call ? call->op.as<ir::OpNode>() : nullptr;
    return op != nullptr && op->name == "tirx.vscale";
  };
  const auto* mul = lanes.as<ir::MulNode>();
  if (mul == nullptr) return std::nullopt;
  const auto* a = mul->a.as<ir::IntImmNode>();
  const auto* b = mul->b.as<ir::IntImmNode>();
  if (a != nullptr && is_vscale(mul->b)) return a->value;
  if (b != nullptr && is_vscale(mul->a)) return b->value;
  return std::nullopt;
}

absl::StatusOr<int> EncodedLanes(const PrimExpr& lanes, const std::string& what) {
  constexpr int64_t kMaxLanes = 32767;  // TVM's lane field is an int16
  if (const auto* n = lanes.as<ir::IntImmNode>()) {
    if (n->value < 1 || n->value > kMaxLanes) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " lanes must be between 1 and ", kMaxLanes, ", got ", n->value));
    }
    return static_cast<int>(n->value);
  }
  std::optional<int64_t> factor = MatchVScaleLanes(lanes);
  if (!factor) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " lanes must be a constant or T.vscale() * k (a scalable vector)"));
  }
  if (*factor < 2 || *factor > kMaxLanes) {
    return absl::InvalidArgumentError(absl::StrCat(what, " lanes T.vscale() * ", *factor,
                                                   ": the vscale factor must be between 2 and ", kMaxLanes));
  }
  return static_cast<int>(-*factor);
}

absl::Status MatchTypes(const Operand& a, const Operand& b, PrimExpr* out_a, PrimExpr* out_b) {
  PrimExpr x, y;
  if (a.is_literal() && b.is_literal()) {
    // Two literals: the float one (if any) sets the type, as in Python.
    if (b.kind() == Operand::Kind::kFloat && a.kind() != Operand::Kind::kFloat) {
      y = b.Materialize();
    } else {
      x = a.Materialize();
    }
  } else {
    if (!a.is_literal()) x = a.expr();
    if (!b.is_literal()) y = b.expr();
  }
  if (!x.defined()) {
    absl::StatusOr<PrimExpr> r = Adopt(a, y.dtype());
    if (!r.ok()) return r.status();
    x = *r;
  }
  if (!y.defined()) {
    absl::StatusOr<PrimExpr> r = Adopt(b, x.dtype());
    if (!r.ok()) return r.status();
    y = *r;
  }
  DataType ta = x.dtype(), tb = y.dtype();
  if (ta.lanes() != tb.lanes() && ta.lanes() != 1 && tb.lanes() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("mismatched lanes: ", ta.ToString(), " vs ", tb.ToString()));
  }
  absl::StatusOr<DataType> elem = CommonElementType(ta, tb);
  if (!elem.ok()) return elem.status();
  int lanes = ta.lanes() == 1 ? tb.lanes() : ta.lanes();  // a scalable vector's lanes() is negative
  absl::StatusOr<PrimExpr> cx = CastTo(elem->with_lanes(lanes), x, x->span);
  if (!cx.ok()) return cx.status();
  absl::StatusOr<PrimExpr> cy = CastTo(elem->with_lanes(lanes), y, y->span);
  if (!cy.ok()) return cy.status();
  *out_a = *cx;
  *out_b = *cy;
  return absl::OkStatus();
}

namespace {

// For and/or/not: a literal becomes a bool constant; an expression must already be bool.
absl::StatusOr<PrimExpr> AsBool(const Operand& o, const char* op_name, DataType other) {
  if (o.is_literal()) {
    if (o.kind() == Operand::Kind::kFloat) {
      return absl::InvalidArgumentError(
          absl::StrCat(op_name, " expects bool operands, got float literal ", LiteralText(o)));
    }
    return MakeConst(DataType::Bool(other.is_bool() ? other.lanes() : 1),
                     Operand::BoolLiteral(o.int_value() != 0, o.span()), o.span());
  }
  if (!o.expr().dtype().is_bool()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op_name, " expects bool operands, got ", o.expr().dtype().ToString()));
  }
  return o.expr();
}

}  // namespace

namespace {

// An integer result wrapped to the width of `t` (sign-extended for signed types), as TVM stores a
// folded immediate.
int64_t WrapToType(uint64_t x, DataType t) {
  int bits = t.bits();
  if (bits >= 64) return static_cast<int64_t>(x);
  x &= (uint64_t{1} << bits) - 1;
  if (t.is_int()) {
    uint64_t m = uint64_t{1} << (bits - 1);
    return static_cast<int64_t>((x ^ m) - m);
  }
  return static_cast<int64_t>(x);
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// A folded float immediate: float32 arithmetic for 32-bit types, double for 64-bit; other widths
// are not folded (nullopt-like: an undefined expression).
PrimExpr FoldFloat(DataType t, double a, double b, double (*f)(double, double)) {
  if (t.bits() == 32) return ir::FloatImm(t, static_cast<float>(f(static_cast<float>(a), static_cast<float>(b))));
  if (t.bits() == 64) return ir::FloatImm(t, f(a, b));
  return PrimExpr();
}

absl::Status DivByZero() { return absl::InvalidArgumentError("division by zero"); }

// The folding TVM's operator functions (add, sub, mul, div, truncmod, floordiv, floormod, min,
// max) apply to operands of one dtype before they build a node: immediates are computed and
// identities (x + 0, x * 1, 0 * x, x // 1, ...) return an operand. Undefined when nothing folds.
absl::StatusOr<PrimExpr> TryConstFold(BinaryOpKind kind, const PrimExpr& a, const PrimExpr& b) {
  const auto* pa = a.as<ir::IntImmNode>();
  const auto* pb = b.as<ir::IntImmNode>();
  const auto* fa = a.as<ir::FloatImmNode>();
  const auto* fb = b.as<ir::FloatImmNode>();
  DataType t = a.dtype();
  // truncmod and floormod fold only on index types (scalar int32/int64), as in TVM.
  bool index = t.is_int() && (t.bits() == 32 || t.bits() == 64) && t.lanes() == 1;
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  switch (kind) {
    case BinaryOpKind::kAdd:
      if (pa && pb) return PrimExpr(ir::IntImm(t, WrapToType(u(pa->value) + u(pb->value), t)));
      if (pa && pa->value == 0) return b;
      if (pb && pb->value == 0) return a;
      if (fa && fb) {
        PrimExpr r = FoldFloat(t, fa->value, fb->value, [](double x, double y) { return x + y; });
        if (r.defined()) return r;
      }
      if (fa && fa->value == 0) return b;
      if (fb && fb->value == 0) return a;
      return PrimExpr();
    case BinaryOpKind::kSub:
      if (pa && pb) return PrimExpr(ir::IntImm(t, WrapToType(u(pa->value) - u(pb->value), t)));
      if (pb && pb->value == 0) return a;
      if (fa && fb) {
        PrimExpr r = FoldFloat(t, fa->value, fb->value, [](double x, double y) { return x - y; });
        if (r.defined()) return r;
      }
      if (fb && fb->value == 0) return a;
      return PrimExpr();
    case BinaryOpKind::kMul:
      if (pa && pb) return PrimExpr(ir::IntImm(t, WrapToType(u(pa->value) * u(pb->value), t)));
      if (pa && pa->value == 1) return b;
      if (pa && pa->value == 0) return a;
      if (pb && pb->value == 1) return a;
      if (pb && pb->value == 0) return b;
      if (fa && fb) {
        PrimExpr r = FoldFloat(t, fa->value, fb->value, [](double x, double y) { return x * y; });
        if (r.defined()) return r;
      }
      if (fa && fa->value == 1) return b;
      if (fa && fa->value == 0) return a;
      if (fb && fb->value == 1) return a;
      if (fb && fb->value == 0) return b;
      return PrimExpr();
    case BinaryOpKind::kDiv:
    case BinaryOpKind::kFloorDiv: {
      bool floor = kind == BinaryOpKind::kFloorDiv;
      if ((pb && pb->value == 0) || (fb && fb->value == 0)) return DivByZero();
      if (pa && pb) {
        // The one quotient a signed type cannot hold; the same division traps at run time (x86's
        // idiv), so folding it to a wrapped value would hide the fault.
        if (t.is_int() && pb->value == -1 && pa->value == WrapToType(uint64_t{1} << (t.bits() - 1), t)) {
          return absl::InvalidArgumentError(absl::StrCat("integer overflow: ", pa->value, " // -1 does not fit in ",
                                                         t.ToString(), " (the division traps at run time)"));
        }
        int64_t q = floor ? FloorDivInt(pa->value, pb->value) : pa->value / pb->value;
        return PrimExpr(ir::IntImm(t, WrapToType(u(q), t)));
      }
      if (pa && pa->value == 0) return a;
      if (pb && pb->value == 1) return a;
      if (fa && fb) {
        PrimExpr r = floor ? FoldFloat(t, fa->value, fb->value, [](double x, double y) { return std::floor(x / y); })
                           : FoldFloat(t, fa->value, fb->value, [](double x, double y) { return x / y; });
        if (r.defined() || floor) return r;
      }
      if (fa && fa->value == 0) return a;
      if (fb && fb->value == 1) return a;
      return PrimExpr();
    }
    case BinaryOpKind::kMod:
    case BinaryOpKind::kFloorMod: {
      bool floor = kind == BinaryOpKind::kFloorMod;
      if (floor && t.is_uint() && pa && pb) {
        uint64_t rhs = u(WrapToType(u(pb->value), t));
        if (rhs == 0) return DivByZero();
        return PrimExpr(ir::IntImm(t, static_cast<int64_t>(u(WrapToType(u(pa->value), t)) % rhs)));
      }
      if (!index) return PrimExpr();
      if (pb && pb->value == 0) return DivByZero();
      if (pa && pb) {
        if (pb->value == -1) return PrimExpr(ir::IntImm(t, 0));
        int64_t r = floor ? pa->value - FloorDivInt(pa->value, pb->value) * pb->value : pa->value % pb->value;
        return PrimExpr(ir::IntImm(t, r));
      }
      if (pa && pa->value == 0) return a;
      if (pb && pb->value == 1) return PrimExpr(ir::IntImm(t, 0));
      return PrimExpr();
    }
    case BinaryOpKind::kMin:
    case BinaryOpKind::kMax: {
      bool mx = kind == BinaryOpKind::kMax;
      if (pa && pb) return PrimExpr(ir::IntImm(t, mx ? std::max(pa->value, pb->value) : std::min(pa->value, pb->value)));
      if (fa && fb) return PrimExpr(ir::FloatImm(t, mx ? std::max(fa->value, fb->value) : std::min(fa->value, fb->value)));
      if (a.same_as(b)) return a;
      return PrimExpr();
    }
    default:
      return PrimExpr();  // comparisons and logic are built as nodes by TVMScript
  }
}

}  // namespace

bool OperatorFolds(BinaryOpKind kind, const PrimExpr& a, const PrimExpr& b) {
  if (kind >= BinaryOpKind::kEQ && kind <= BinaryOpKind::kGE) {
    // TVM's comparison functions fold two immediates.
    return (a.as<ir::IntImmNode>() && b.as<ir::IntImmNode>()) || (a.as<ir::FloatImmNode>() && b.as<ir::FloatImmNode>());
  }
  if (kind > BinaryOpKind::kGE) return false;
  absl::StatusOr<PrimExpr> folded = TryConstFold(kind, a, b);
  return !folded.ok() || folded->defined();
}

absl::StatusOr<PrimExpr> BinaryOp(BinaryOpKind kind, const Operand& a, const Operand& b, Span span) {
  absl::StatusOr<PrimExpr> node = MakeBinaryNode(kind, a, b, span);
  if (!node.ok()) return node.status();
  if (kind >= BinaryOpKind::kEQ) return node;  // comparisons and logic: never folded
  const auto* bin = static_cast<const ir::BinaryNode*>(node->get());
  absl::StatusOr<PrimExpr> folded = TryConstFold(kind, bin->a, bin->b);
  if (!folded.ok()) return folded.status();
  return folded->defined() ? *folded : *node;
}

absl::StatusOr<PrimExpr> MakeBinaryNode(BinaryOpKind kind, const Operand& a, const Operand& b, Span span) {
  PrimExpr x, y;
  if (kind == BinaryOpKind::kAnd || kind == BinaryOpKind::kOr) {
    DataType ta = a.is_literal() ? DataType::Bool() : a.expr().dtype();
    DataType tb = b.is_literal() ? DataType::Bool() : b.expr().dtype();
    absl::StatusOr<PrimExpr> ba = AsBool(a, BinaryOpName(kind), tb);
    if (!ba.ok()) return ba.status();
    absl::StatusOr<PrimExpr> bb = AsBool(b, BinaryOpName(kind), ta);
    if (!bb.ok()) return bb.status();
    absl::Status st = MatchTypes(*ba, *bb, &x, &y);  // broadcasts a scalar to the other's lanes
    if (!st.ok()) return st;
    if (kind == BinaryOpKind::kAnd) return PrimExpr(ir::And(x, y, span));
    return PrimExpr(ir::Or(x, y, span));
  }
  absl::Status st = MatchTypes(a, b, &x, &y);
  if (!st.ok()) return st;
  if (kind == BinaryOpKind::kMod && !x.dtype().is_int_or_bool()) {
    return absl::InvalidArgumentError(
        absl::StrCat("truncmod expects integer operands, got ", x.dtype().ToString()));
  }
  switch (kind) {
    case BinaryOpKind::kAdd: return PrimExpr(ir::Add(x, y, span));
    case BinaryOpKind::kSub: return PrimExpr(ir::Sub(x, y, span));
    case BinaryOpKind::kMul: return PrimExpr(ir::Mul(x, y, span));
    case BinaryOpKind::kDiv: return PrimExpr(ir::Div(x, y, span));
    case BinaryOpKind::kMod: return PrimExpr(ir::Mod(x, y, span));
    case BinaryOpKind::kFloorDiv: return PrimExpr(ir::FloorDiv(x, y, span));
    case BinaryOpKind::kFloorMod: return PrimExpr(ir::FloorMod(x, y, span));
    case BinaryOpKind::kMin: return PrimExpr(ir::Min(x, y, span));
    case BinaryOpKind::kMax: return PrimExpr(ir::Max(x, y, span));
    case BinaryOpKind::kEQ: return PrimExpr(ir::EQ(x, y, span));
    case BinaryOpKind::kNE: return PrimExpr(ir::NE(x, y, span));
    case BinaryOpKind::kLT: return PrimExpr(ir::LT(x, y, span));
    case BinaryOpKind::kLE: return PrimExpr(ir::LE(x, y, span));
    case BinaryOpKind::kGT: return PrimExpr(ir::GT(x, y, span));
    case BinaryOpKind::kGE: return PrimExpr(ir::GE(x, y, span));
    case BinaryOpKind::kAnd:
    case BinaryOpKind::kOr: break;  // handled above
  }
  return absl::InternalError("unhandled binary operator");
}

absl::StatusOr<PrimExpr> LimitValue(const std::string& which, DataType dtype, Span span) {
  if (dtype.lanes() != 1) return absl::InvalidArgumentError("T." + which + " takes a scalar dtype");
  const bool max = which != "min_value";
  if (dtype.is_float() || dtype.is_bfloat()) {
    double v = which == "infinity" ? std::numeric_limits<double>::infinity()
             : dtype.bits() == 16 ? 65504.0
             : dtype.bits() == 32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
    if (dtype.is_bfloat() && which != "infinity") v = 3.38953139e38;
    return PrimExpr(ir::FloatImm(dtype, max ? v : -v, span));
  }
  if (dtype.is_int() || dtype.is_uint()) {
    if (dtype.bits() > 64) return absl::InvalidArgumentError("T." + which + ": unsupported dtype " + dtype.ToString());
    int64_t v;
    if (dtype.is_uint()) {
      // uint64's maximum does not fit an int64 IntImm: TVM stores it wrapped, as -1.
      v = !max ? 0 : dtype.bits() == 64 ? -1 : static_cast<int64_t>((uint64_t{1} << dtype.bits()) - 1);
    } else {
      int64_t hi = dtype.bits() == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (dtype.bits() - 1)) - 1;
      v = max ? hi : -hi - 1;
    }
    return PrimExpr(ir::IntImm(dtype, v, span));
  }
  if (dtype.is_bool()) return PrimExpr(ir::IntImm(dtype, max ? 1 : 0, span));
  return absl::InvalidArgumentError("T." + which + ": unsupported dtype " + dtype.ToString());
}

absl::StatusOr<PrimExpr> Negate(const Operand& x, Span span) {
  PrimExpr e = x.Materialize();
  if (x.kind() == Operand::Kind::kBool) {
    return absl::InvalidArgumentError("cannot negate a bool literal");
  }
  DataType t = e.dtype();
  if (!t.is_numeric() || t.is_bool()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot negate a value of type ", t.ToString()));
  }
  if (const auto* imm = e.as<ir::IntImmNode>()) {
    if (t.is_int() && imm->value != std::numeric_limits<int64_t>::min()) {
      return MakeConst(t, Operand::IntLiteral(-imm->value), span);
    }
  }
  if (const auto* fimm = e.as<ir::FloatImmNode>()) {
    return MakeConst(t, Operand::FloatLiteral(-fimm->value), span);
  }
  absl::StatusOr<PrimExpr> zero = MakeConst(t, Operand::IntLiteral(0), span);
  if (!zero.ok()) return zero.status();
  return PrimExpr(ir::Sub(*zero, e, span));
}

absl::StatusOr<PrimExpr> LogicalNot(const Operand& x, Span span) {
  absl::StatusOr<PrimExpr> b = AsBool(x, "not", DataType::Bool());
  if (!b.ok()) return b.status();
  if (const auto* imm = b->as<ir::IntImmNode>()) {
    return PrimExpr(ir::IntImm(DataType::Bool(), imm->value ? 0 : 1, span));
  }
  return PrimExpr(ir::Not(*b, span));
}

absl::StatusOr<PrimExpr> MakeSelect(const Operand& cond, const Operand& t, const Operand& f, Span span) {
  absl::StatusOr<PrimExpr> c = AsBool(cond, "T.Select condition", DataType::Bool());
  if (!c.ok()) return c.status();
  PrimExpr tv, fv;
  if (t.is_literal() || f.is_literal()) {
    absl::Status st = MatchTypes(t, f, &tv, &fv);
    if (!st.ok()) return st;
  } else {
    tv = t.expr();
    fv = f.expr();
    if (tv.dtype() != fv.dtype()) return Mismatch(tv.dtype(), fv.dtype());
  }
  int cl = c->dtype().lanes();
  if (cl != 1 && cl != tv.dtype().lanes()) {
    return absl::InvalidArgumentError(absl::StrCat("T.Select condition has ", cl, " lanes but its values are ",
                                                   tv.dtype().ToString()));
  }
  return PrimExpr(ir::Select(*c, tv, fv, span));
}

}  // namespace kiln::tir
