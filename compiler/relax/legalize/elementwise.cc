// Elementwise families: unary math (R.exp, R.abs, R.clip, ...), binary arithmetic with numpy
// broadcasting (R.add .. R.log_add_exp, bitwise and shifts), comparisons and logical ops, and
// R.astype (and R.wrap_param), R.quantize / R.dequantize. One Compute stage each; op_pattern kElemWise, or kBroadcast when an operand is
// broadcast. Integer and float semantics follow topi: divide truncates integers, floor_divide and
// floor_mod round toward -inf, mod truncates.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/relax/legalize/table.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"

namespace kiln::relax::legalize {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

using UnaryFn = std::function<PrimExpr(const PrimExpr&)>;
using BinaryFn = std::function<PrimExpr(const PrimExpr&, const PrimExpr&)>;

bool SameShape(const Array<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < b.size(); ++i) {
    if (!StructuralEqual(a[i], b[i])) return false;
  }
  return true;
}

// An elementwise stage over `operands` (call args: tensors, broadcast to the result, or prim
// values), each converted to `operand_dtype` (void: left as is) before `f` combines them.
LegalizeFn Elementwise(const std::string& name, DataType operand_dtype,
                       std::function<PrimExpr(const std::vector<PrimExpr>&, DataType out)> f, size_t num_operands) {
  return [=](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
    if (!out_tt.ok()) return out_tt.status();
    DataType out_dtype = (*out_tt)->dtype;
    FuncBuilder b(name);
    absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(call->ty);
    if (!shape.ok()) return shape.status();
    std::vector<std::optional<Tensor>> tensors;
    std::vector<PrimExpr> scalars;
    OpPatternKind pattern = OpPatternKind::kElemWise;
    for (size_t k = 0; k < num_operands && k < call->args.size(); ++k) {
      const Expr& arg = call->args[k];
      if (FuncBuilder::IsScalar(arg)) {
        absl::StatusOr<PrimExpr> s = b.Scalar(arg);
        if (!s.ok()) return s.status();
        tensors.push_back(std::nullopt);
        scalars.push_back(*s);
        pattern = OpPatternKind::kBroadcast;
      } else {
        absl::StatusOr<Tensor> t = b.Input(arg);
        if (!t.ok()) return t.status();
        if (!SameShape(t->shape(), *shape)) pattern = OpPatternKind::kBroadcast;
        tensors.push_back(*t);
        scalars.push_back(PrimExpr());
      }
    }
    Tensor out = b.Compute("T_" + name, *shape, out_dtype, [&](const Indices& i) {
      std::vector<PrimExpr> values;
      for (size_t k = 0; k < tensors.size(); ++k) {
        PrimExpr v = tensors[k] ? (*tensors[k])(BroadcastIndices(*tensors[k], *shape, i)) : scalars[k];
        values.push_back(operand_dtype.is_void() ? v : CastTo(operand_dtype, v));
      }
      return f(values, out_dtype);
    });
    return ctx->Emit(b, {out}, pattern, call);
  };
}

// The dtype both operands of a binary op are brought to: the first tensor operand's.
DataType OperandDType(const rx::Call& call) {
  for (const Expr& a : call->args) {
    if (const auto* tt = ExprType(a).as<TensorTypeNode>()) return tt->dtype;
  }
  for (const Expr& a : call->args) {
    if (const auto* pt = ExprType(a).as<PrimTypeNode>()) return pt->dtype;
  }
  return DataType::Void();
}

LegalizeFn Binary(const std::string& name, BinaryFn f) {
  return [=](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    LegalizeFn inner = Elementwise(name, OperandDType(call),
                                   [f](const std::vector<PrimExpr>& v, DataType) { return f(v[0], v[1]); }, 2);
    return inner(call, ctx);
  };
}

LegalizeFn Unary(const std::string& name, UnaryFn f) {
  return Elementwise(name, DataType::Void(), [f](const std::vector<PrimExpr>& v, DataType) { return f(v[0]); }, 1);
}

LegalizeFn Math(const std::string& name) {
  return Unary(name, [name](const PrimExpr& x) { return Intrin(name, x.dtype(), {x}); });
}

PrimExpr Zero(const PrimExpr& like) { return Const(like.dtype(), 0); }

PrimExpr Abs(const PrimExpr& x) {
  if (x.dtype().is_floating()) return Intrin("fabs", x.dtype(), {x});
  if (x.dtype().is_uint() || x.dtype().is_bool()) return x;
  return Select(LT(x, Zero(x)), Sub(Zero(x), x), x);
}

PrimExpr FloorDivide(const PrimExpr& a, const PrimExpr& b) {
  if (a.dtype().is_floating()) return Intrin("floor", a.dtype(), {Div(a, b)});
  return FloorDiv(a, b);
}

PrimExpr FloorModulo(const PrimExpr& a, const PrimExpr& b) {
  if (a.dtype().is_floating()) return Sub(a, Mul(Intrin("floor", a.dtype(), {Div(a, b)}), b));
  return FloorMod(a, b);
}

PrimExpr TruncModulo(const PrimExpr& a, const PrimExpr& b) {
  if (a.dtype().is_floating()) return Sub(a, Mul(Intrin("trunc", a.dtype(), {Div(a, b)}), b));
  return Mod(a, b);
}

PrimExpr Power(const PrimExpr& a, const PrimExpr& b) {
  if (a.dtype().is_floating()) return Intrin("pow", a.dtype(), {a, b});
  DataType f64 = DataType::Float(64);
  return CastTo(a.dtype(), Intrin("pow", f64, {CastTo(f64, a), CastTo(f64, b)}));
}

// log(exp(a) + exp(b)) without overflow: max(a, b) + log(1 + exp(-|a - b|)).
PrimExpr LogAddExp(const PrimExpr& a, const PrimExpr& b) {
  DataType t = a.dtype();
  PrimExpr e = Intrin("exp", t, {Sub(Zero(a), Abs(Sub(a, b)))});
  return Add(Max(a, b), Intrin("log", t, {Add(Const(t, 1), e)}));
}

PrimExpr Sign(const PrimExpr& x) {
  DataType t = x.dtype();
  if (t.is_bool()) return x;
  PrimExpr neg = t.is_uint() ? Zero(x) : Const(t, -1);
  return Select(GT(x, Zero(x)), Const(t, 1), Select(LT(x, Zero(x)), neg, Zero(x)));
}

PrimExpr Round(const PrimExpr& x) {
  // topi.round rounds half to even (tir.round is nearbyint), as numpy does.
  if (!x.dtype().is_floating()) return x;
  return Intrin("nearbyint", x.dtype(), {x});
}

PrimExpr IntOnly(const std::string& name, const PrimExpr& x) {
  if (!x.dtype().is_floating()) return x;
  return Intrin(name, x.dtype(), {x});
}

PrimExpr AsBool(const PrimExpr& x) { return x.dtype().is_bool() ? x : PrimExpr(NE(x, Zero(x))); }

// R.quantize: clip(round(data / scale) + zero_point) to out_dtype's range; R.dequantize:
// (data - zero_point) * scale. scale and zero_point are per tensor (one element) or per `axis`.
LegalizeFn Qdq(const std::string& name, bool quantize) {
  return [=](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
    if (!out_tt.ok()) return out_tt.status();
    DataType out_dt = (*out_tt)->dtype;
    FuncBuilder b(name);
    std::vector<Tensor> in;
    for (size_t k = 0; k < 3; ++k) {
      absl::StatusOr<Tensor> t = b.Input(call->args[k]);
      if (!t.ok()) return t.status();
      in.push_back(*t);
    }
    const Tensor &x = in[0], &scale = in[1], &zp = in[2];
    absl::StatusOr<int> axis = NormalizeAxis(name, IntAttr(call, "axis").value_or(-1), x.ndim());
    if (!axis.ok()) return axis.status();
    // A per-axis parameter is indexed by the axis; a single value at 0 in every dim.
    auto param = [&](const Tensor& p, const Indices& i) {
      bool per_axis = p.ndim() == 1 && !(AsConst(p.shape()[0]) && *AsConst(p.shape()[0]) == 1);
      return per_axis ? p({i[*axis]}) : p(Indices(p.ndim(), Int64(0)));
    };
    DataType f = DataType::Float(32);
    Tensor out = b.Compute("T_" + name, x.shape().ToVector(), out_dt, [&](const Indices& i) {
      PrimExpr s = CastTo(f, param(scale, i)), z = CastTo(f, param(zp, i));
      PrimExpr v = CastTo(f, x(i));
      if (!quantize) return CastTo(out_dt, Mul(Sub(v, z), s));
      PrimExpr q = Add(Intrin("nearbyint", f, {Div(v, s)}), z);
      return CastTo(out_dt, Min(Max(q, CastTo(f, MinValue(out_dt))), CastTo(f, MaxValue(out_dt))));
    });
    return ctx->Emit(b, {out}, OpPatternKind::kBroadcast, call);
  };
}

}  // namespace

void RegisterElementwiseOps(LegalizeTable* t) {
  auto& table = *t;
  // ---- unary ----
  for (const char* name : {"acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "erf", "exp", "log",
                           "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "tan", "tanh"}) {
    table[absl::StrCat("relax.", name)] = Math(name);
  }
  table["relax.abs"] = Unary("abs", Abs);
  table["relax.ceil"] = Unary("ceil", [](const PrimExpr& x) { return IntOnly("ceil", x); });
  table["relax.floor"] = Unary("floor", [](const PrimExpr& x) { return IntOnly("floor", x); });
  table["relax.trunc"] = Unary("trunc", [](const PrimExpr& x) { return IntOnly("trunc", x); });
  table["relax.round"] = Unary("round", Round);
  table["relax.negative"] = Unary("negative", [](const PrimExpr& x) { return PrimExpr(Sub(Zero(x), x)); });
  table["relax.sign"] = Unary("sign", Sign);
  table["relax.square"] = Unary("square", [](const PrimExpr& x) { return PrimExpr(Mul(x, x)); });
  table["relax.logical_not"] = Unary("logical_not", [](const PrimExpr& x) { return PrimExpr(Not(AsBool(x))); });
  table["relax.bitwise_not"] = Unary("bitwise_not", [](const PrimExpr& x) {
    if (x.dtype().is_bool()) return PrimExpr(Not(x));
    return Intrin("bitwise_not", x.dtype(), {x});
  });
  for (const char* name : {"isfinite", "isinf", "isnan"}) {
    table[absl::StrCat("relax.", name)] = Unary(name, [name = std::string(name)](const PrimExpr& x) {
      if (!x.dtype().is_floating()) return Const(DataType::Bool(), name == "isfinite" ? 1 : 0);
      return Intrin(name, DataType::Bool(), {x});
    });
  }
  // R.clip(x, min, max): the bounds are prim values, converted to x's dtype.
  table["relax.clip"] = [](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    DataType dt = OperandDType(call);
    return Elementwise("clip", DataType::Void(),
                       [dt](const std::vector<PrimExpr>& v, DataType) {
                         return PrimExpr(Min(Max(v[0], CastTo(dt, v[1])), CastTo(dt, v[2])));
                       },
                       3)(call, ctx);
  };
  table["relax.astype"] = Elementwise("astype", DataType::Void(),
                                      [](const std::vector<PrimExpr>& v, DataType out) { return CastTo(out, v[0]); }, 1);
  // R.wrap_param marks a parameter converted to `dtype`: the conversion.
  table["relax.wrap_param"] = table["relax.astype"];
  table["relax.quantize"] = Qdq("quantize", true);
  table["relax.dequantize"] = Qdq("dequantize", false);

  // ---- binary arithmetic ----
  table["relax.add"] = Binary("add", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(Add(a, b)); });
  table["relax.subtract"] = Binary("subtract", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(Sub(a, b)); });
  table["relax.multiply"] = Binary("multiply", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(Mul(a, b)); });
  table["relax.divide"] = Binary("divide", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(Div(a, b)); });
  table["relax.floor_divide"] = Binary("floor_divide", FloorDivide);
  table["relax.mod"] = Binary("mod", TruncModulo);
  table["relax.floor_mod"] = Binary("floor_mod", FloorModulo);
  table["relax.power"] = Binary("power", Power);
  table["relax.atan2"] = Binary("atan2", [](const PrimExpr& a, const PrimExpr& b) {
    return Intrin("atan2", a.dtype(), {a, b});
  });
  table["relax.log_add_exp"] = Binary("log_add_exp", LogAddExp);
  table["relax.maximum"] = Binary("maximum", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(Max(a, b)); });
  table["relax.minimum"] = Binary("minimum", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(Min(a, b)); });
  for (const char* name : {"bitwise_and", "bitwise_or", "bitwise_xor"}) {
    table[absl::StrCat("relax.", name)] = Binary(name, [name = std::string(name)](const PrimExpr& a, const PrimExpr& b) {
      if (a.dtype().is_bool()) {
        if (name == "bitwise_and") return PrimExpr(And(a, b));
        if (name == "bitwise_or") return PrimExpr(Or(a, b));
        return PrimExpr(NE(a, b));
      }
      return Intrin(name, a.dtype(), {a, b});
    });
  }
  table["relax.left_shift"] = Binary("left_shift", [](const PrimExpr& a, const PrimExpr& b) {
    return Intrin("shift_left", a.dtype(), {a, b});
  });
  table["relax.right_shift"] = Binary("right_shift", [](const PrimExpr& a, const PrimExpr& b) {
    return Intrin("shift_right", a.dtype(), {a, b});
  });

  // ---- comparison and logical ----
  table["relax.equal"] = Binary("equal", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(EQ(a, b)); });
  table["relax.not_equal"] = Binary("not_equal", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(NE(a, b)); });
  table["relax.less"] = Binary("less", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(LT(a, b)); });
  table["relax.less_equal"] = Binary("less_equal", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(LE(a, b)); });
  table["relax.greater"] = Binary("greater", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(GT(a, b)); });
  table["relax.greater_equal"] =
      Binary("greater_equal", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(GE(a, b)); });
  table["relax.logical_and"] =
      Binary("logical_and", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(And(AsBool(a), AsBool(b))); });
  table["relax.logical_or"] =
      Binary("logical_or", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(Or(AsBool(a), AsBool(b))); });
  table["relax.logical_xor"] =
      Binary("logical_xor", [](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(NE(AsBool(a), AsBool(b))); });
}

}  // namespace kiln::relax::legalize
