// Tensor creation: R.full/zeros/ones (from a shape), the *_like variants, R.arange, R.eye /
// eye_like, R.hamming_window and R.tril/triu (shape-preserving masks). Scalar operands (arange's
// bounds, eye's n/m/k, the window size) are PrimValue arguments, as TVM builds them.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

absl::StatusOr<Type> FromShapeArg(const std::string& op, const ir::relax::Call& call, DataType dtype) {
  std::vector<PrimExpr> shape;
  int ndim = -1;
  if (GetShapeValues(call->args[0], &shape, &ndim)) return MakeTensorType(shape, dtype);
  Type t = ExprType(call->args[0]);
  if (t.defined() && !t.as<ShapeTypeNode>() && !t.as<AnyTypeNode>()) {
    return OpError(op, "expects a shape for argument 'shape', got " + TypeToString(t));
  }
  return MakeTensorType(dtype, ndim);
}

DataType ValueDType(const Type& t) {
  if (const auto* p = t.as<PrimTypeNode>()) return p->dtype;
  if (const auto* tt = t.as<TensorTypeNode>()) return tt->dtype;
  return DataType::Void();
}

absl::StatusOr<Type> InferFull(const ir::relax::Call& call) {
  Type fill = ArgType(call, 1);
  if (const auto* tt = fill.as<TensorTypeNode>()) {
    if (tt->ndim > 0) return OpError("full", "fill_value must be a scalar");
  }
  DataType dtype = DTypeAttr(call, "dtype");
  if (dtype.is_void()) dtype = ValueDType(fill);
  return FromShapeArg("full", call, dtype);
}

InferFn FilledInfer(const std::string& op) {
  return [op](const ir::relax::Call& call) { return FromShapeArg(op, call, DTypeAttr(call, "dtype")); };
}

InferFn LikeInfer(const std::string& op) {
  return [op](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "x");
    if (!x.ok()) return x.status();
    DataType dtype = DTypeAttr(call, "dtype");
    if (!dtype.is_void()) x->dtype = dtype;
    return MakeTensorType(*x);
  };
}

PrimExpr PrimArg(const ir::relax::Call& call, size_t i) {
  if (const auto* p = call->args[i].as<ir::relax::PrimValueNode>()) return p->value;
  const Type ty = ArgType(call, i);
  if (const auto* pt = ty.as<PrimTypeNode>()) return pt->value;
  return PrimExpr();
}

absl::StatusOr<Type> InferArange(const ir::relax::Call& call) {
  PrimExpr start = PrimArg(call, 0), end = PrimArg(call, 1), step = PrimArg(call, 2);
  DataType dtype = DTypeAttr(call, "dtype");
  if (dtype.is_void() && start.defined()) dtype = start.dtype();
  if (!start.defined() || !end.defined() || !step.defined()) return MakeTensorType(dtype, 1);
  const auto* fs = start.as<FloatImmNode>();
  const auto* fe = end.as<FloatImmNode>();
  const auto* fst = step.as<FloatImmNode>();
  if (fs || fe || fst) {
    auto val = [](const PrimExpr& e) -> std::optional<double> {
      if (const auto* f = e.as<FloatImmNode>()) return f->value;
      if (auto c = AsConst(e)) return static_cast<double>(*c);
      return std::nullopt;
    };
    auto s = val(start), e = val(end), st = val(step);
    if (!s || !e || !st) return MakeTensorType(dtype, 1);
    if (*st == 0) return OpError("arange", "step must be non-zero");
    return MakeTensorType({Dim(std::max<int64_t>(0, static_cast<int64_t>(std::ceil((*e - *s) / *st))))}, dtype);
  }
  auto cst = AsConst(step);
  if (cst && *cst == 0) return OpError("arange", "step must be non-zero");
  auto cs = AsConst(start), ce = AsConst(end);
  if (cs && ce && cst) {
    int64_t span = *ce - *cs;
    int64_t n = *cst > 0 ? (span + *cst - 1) / *cst : (span + *cst + 1) / *cst;
    return MakeTensorType({Dim(std::max<int64_t>(0, n))}, dtype);
  }
  if (cst && *cst > 0) {
    return MakeTensorType({FloorDivDim(AddDim(SubDim(end, start), Dim(*cst - 1)), Dim(*cst))}, dtype);
  }
  return MakeTensorType(dtype, 1);
}

InferFn TriInfer(const std::string& op) {
  return [op](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "x");
    if (!x.ok()) return x.status();
    if (x->ndim >= 0 && x->ndim < 2) return OpError(op, absl::StrCat("expects a tensor of rank >= 2, got ", x->ndim));
    return MakeTensorType(*x);
  };
}

absl::StatusOr<Type> InferEye(const ir::relax::Call& call) {
  PrimExpr n = PrimArgValue(call, 0), m = PrimArgValue(call, 1);
  if (!n.defined() || !m.defined()) {
    for (size_t i = 0; i < 2; ++i) {
      Type t = ArgType(call, i);
      if (t.defined() && !t.as<PrimTypeNode>() && !t.as<AnyTypeNode>()) {
        return OpError("eye", absl::StrCat("expects a prim value for argument '", i == 0 ? "n" : "m", "', got ",
                                           TypeToString(t)));
      }
    }
    return MakeTensorType(DTypeAttr(call, "dtype"), 2);
  }
  return MakeTensorType({n, m}, DTypeAttr(call, "dtype"));
}

absl::StatusOr<Type> InferEyeLike(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "eye_like", "x");
  if (!x.ok()) return x.status();
  if (x->ndim >= 0 && x->ndim != 2) {
    return OpError("eye_like", absl::StrCat("expects a 2-D tensor, got rank ", x->ndim));
  }
  DataType dtype = DTypeAttr(call, "dtype");
  if (!dtype.is_void()) x->dtype = dtype;
  return MakeTensorType(*x);
}

absl::StatusOr<Type> InferHammingWindow(const ir::relax::Call& call) {
  DataType dtype = DTypeAttr(call, "dtype");
  if (dtype.is_int() || dtype.is_uint()) {
    return OpError("hamming_window", "expects a floating-point dtype, got " + dtype.ToString());
  }
  PrimExpr size = PrimArgValue(call, 0);
  if (!size.defined()) return MakeTensorType(dtype, 1);
  if (auto c = AsConst(size); c && *c < 1) {
    return OpError("hamming_window", absl::StrCat("window_size must be positive, got ", *c));
  }
  return MakeTensorType({size}, dtype);
}

}  // namespace

void RegisterCreateOps(std::vector<OpSchema>* ops) {
  AddOp(ops, "full", {"shape", "fill_value"}, {DTypeAttrSpec("dtype", DataType::Void())}, InferFull);
  AddOp(ops, "zeros", {"shape"}, {RequiredDTypeAttrSpec("dtype")}, FilledInfer("zeros"));
  AddOp(ops, "ones", {"shape"}, {RequiredDTypeAttrSpec("dtype")}, FilledInfer("ones"));
  AddOp(ops, "full_like", {"x", "fill_value"}, {DTypeAttrSpec("dtype", DataType::Void())}, LikeInfer("full_like"));
  AddOp(ops, "zeros_like", {"x"}, {DTypeAttrSpec("dtype", DataType::Void())}, LikeInfer("zeros_like"));
  AddOp(ops, "ones_like", {"x"}, {DTypeAttrSpec("dtype", DataType::Void())}, LikeInfer("ones_like"));
  AddOp(ops, "arange", {"start", "end", "step"}, {DTypeAttrSpec("dtype", DataType::Void())}, InferArange);
  // R.eye(n, m=None, k=0, dtype="float32"): m defaults to n.
  OpSchema& eye = AddOp(ops, "eye", {"n", "m", "k"}, {DTypeAttrSpec("dtype", DataType::Float(32))}, InferEye);
  eye.min_args = 1;
  eye.finalize_args = [](Array<Expr>* args) {
    if (args->size() == 1) args->push_back((*args)[0]);
    if (args->size() == 2) args->push_back(ir::relax::PrimValue(IntImm(DataType::Int(64), 0)));
  };
  OpSchema& eye_like = AddOp(ops, "eye_like", {"x", "k"}, {DTypeAttrSpec("dtype", DataType::Void())}, InferEyeLike);
  eye_like.min_args = 1;
  eye_like.arg_defaults = {ir::relax::PrimValue(IntImm(DataType::Int(64), 0))};
  AddOp(ops, "hamming_window", {"window_size", "periodic", "alpha", "beta"}, {RequiredDTypeAttrSpec("dtype")},
        InferHammingWindow);
  for (const char* name : {"tril", "triu"}) {
    OpSchema& s = AddOp(ops, name, {"x", "k"}, {}, TriInfer(name));
    s.min_args = 1;
    s.arg_defaults = {ir::relax::PrimValue(IntImm(DataType::Int(64), 0))};
  }
}

}  // namespace kiln::relax
