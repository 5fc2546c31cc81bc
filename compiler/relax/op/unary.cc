// Elementwise unary operators (R.exp, R.abs, R.isnan, R.clip, ...) and the dtype conversions
// R.astype, R.wrap_param, R.quantize and R.dequantize: the result has the operand's shape;
// transcendental functions require a floating dtype, predicates give bool.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

enum class Rule { kAny, kFloat, kInt, kBoolOut };

InferFn UnaryInfer(const std::string& op, Rule rule) {
  return [op, rule](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    Type t = ArgType(call, 0);
    absl::StatusOr<TensorInfo> x = GetTensorInfo(t, op, "x", /*allow_prim=*/true);
    if (!x.ok()) return x.status();
    if (rule == Rule::kFloat && !x->dtype.is_void() && !x->dtype.is_floating()) {
      return OpError(op, "expects a floating-point input, got " + x->dtype.ToString());
    }
    if (rule == Rule::kInt && !x->dtype.is_void() && !x->dtype.is_int_or_bool()) {
      return OpError(op, "expects an integer input, got " + x->dtype.ToString());
    }
    if (rule == Rule::kBoolOut) x->dtype = DataType::Bool();
    if (t.as<PrimTypeNode>()) return Type(PrimType(x->dtype));
    return MakeTensorType(*x);
  };
}

absl::StatusOr<Type> InferAstype(const ir::relax::Call& call) {
  Type t = ArgType(call, 0);
  absl::StatusOr<TensorInfo> x = GetTensorInfo(t, "astype", "x", /*allow_prim=*/true);
  if (!x.ok()) return x.status();
  x->dtype = DTypeAttr(call, "dtype");
  if (t.as<PrimTypeNode>()) return Type(PrimType(x->dtype));
  return MakeTensorType(*x);
}

absl::StatusOr<Type> InferWrapParam(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "wrap_param", "data");
  if (!x.ok()) return x.status();
  x->dtype = DTypeAttr(call, "dtype");
  return MakeTensorType(*x);
}

bool OneOf(DataType dt, std::initializer_list<const char*> names) {
  std::string s = dt.ToString();
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return s == n; });
}

// R.quantize / R.dequantize(data, scale, zero_point, axis, out_dtype): scale and zero_point are
// scalars, unit vectors, or vectors as long as data's `axis` dimension.
InferFn QdqInfer(const std::string& op, bool quantize) {
  return [op, quantize](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    DataType out = DTypeAttr(call, "out_dtype");
    bool out_ok = quantize ? OneOf(out, {"int8", "uint8", "int16", "uint16", "float8_e4m3fn", "float8_e5m2"})
                           : OneOf(out, {"float16", "float32"});
    if (!out_ok) return OpError(op, "unsupported out_dtype " + out.ToString());
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
    if (!x.ok()) return x.status();
    absl::StatusOr<TensorInfo> scale = GetTensorInfo(ArgType(call, 1), op, "scale");
    if (!scale.ok()) return scale.status();
    absl::StatusOr<TensorInfo> zp = GetTensorInfo(ArgType(call, 2), op, "zero_point");
    if (!zp.ok()) return zp.status();
    if (!x->dtype.is_void() && !scale->dtype.is_void() && !zp->dtype.is_void()) {
      bool in_ok = quantize ? OneOf(x->dtype, {"float16", "float32"})
                            : OneOf(x->dtype, {"int8", "uint8", "int16", "uint16", "int32", "float8_e4m3fn",
                                               "float8_e5m2", "float16", "float32"});
      if (!in_ok) return OpError(op, "unsupported data dtype " + x->dtype.ToString());
      if (!OneOf(scale->dtype, {"float16", "float32"})) {
        return OpError(op, "scale must be float16 or float32, got " + scale->dtype.ToString());
      }
      if (!OneOf(zp->dtype, {"int8", "uint8", "int16", "uint16", "int32", "uint32", "float16"})) {
        return OpError(op, "unsupported zero_point dtype " + zp->dtype.ToString());
      }
    }
    if (x->ndim >= 0) {
      absl::StatusOr<int> axis = NormalizeAxis(op, IntAttr(call, "axis").value_or(-1), x->ndim);
      if (!axis.ok()) return axis.status();
      for (const auto& [p, name] : {std::pair<const TensorInfo*, const char*>{&*scale, "scale"}, {&*zp, "zero_point"}}) {
        if (!x->shape_known || !p->shape_known || p->shape.empty()) continue;
        bool unit = std::all_of(p->shape.begin(), p->shape.end(), [](const PrimExpr& d) { return !ProveNotEqual(d, Dim(1)); });
        if (unit) continue;
        if (p->shape.size() != 1 || ProveNotEqual(p->shape[0], x->shape[*axis])) {
          return OpError(op, absl::StrCat(name, " has shape ", ShapeToString(p->shape), " but dimension ", *axis,
                                          " of data is ", DimToString(x->shape[*axis])));
        }
      }
    }
    x->dtype = out;
    return MakeTensorType(*x);
  };
}

}  // namespace

void RegisterUnaryOps(std::vector<OpSchema>* ops) {
  for (const char* name : {"acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "erf", "exp",
                           "log", "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "tan", "tanh"}) {
    AddOp(ops, name, {"x"}, {}, UnaryInfer(name, Rule::kFloat));
  }
  for (const char* name : {"abs", "ceil", "floor", "negative", "round", "sign", "square", "trunc", "logical_not"}) {
    AddOp(ops, name, {"x"}, {}, UnaryInfer(name, Rule::kAny));
  }
  for (const char* name : {"isfinite", "isinf", "isnan"}) AddOp(ops, name, {"x"}, {}, UnaryInfer(name, Rule::kBoolOut));
  AddOp(ops, "bitwise_not", {"x"}, {}, UnaryInfer("bitwise_not", Rule::kInt));
  // R.clip(x, min, max): the bounds are PrimValue arguments.
  AddOp(ops, "clip", {"x", "min", "max"}, {}, UnaryInfer("clip", Rule::kAny));
  AddOp(ops, "astype", {"x"}, {RequiredDTypeAttrSpec("dtype")}, InferAstype);
  AddOp(ops, "wrap_param", {"data"}, {DTypeAttrSpec("dtype", DataType::Float(32))}, InferWrapParam);
  AddOp(ops, "quantize", {"data", "scale", "zero_point"},
        {DTypeAttrSpec("out_dtype", DataType::Int(8)), IntAttrSpec("axis", -1)}, QdqInfer("quantize", true));
  AddOp(ops, "dequantize", {"data", "scale", "zero_point"},
        {DTypeAttrSpec("out_dtype", DataType::Float(32)), IntAttrSpec("axis", -1)}, QdqInfer("dequantize", false));
}

}  // namespace kiln::relax
