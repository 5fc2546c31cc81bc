// Elementwise unary operators (R.exp, R.abs, R.isnan, R.clip, ...) and R.astype: the result has
// the operand's shape; transcendental functions require a floating dtype, predicates give bool.
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
}

}  // namespace kiln::relax
