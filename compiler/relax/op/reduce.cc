// Reductions (R.sum/mean/max/min/prod/std/variance over `axis` with `keepdims`), R.argmax/argmin
// and the scans R.cumsum/cumprod.
#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

// The reduced type for the given axes (nullopt: all axes).
absl::StatusOr<Type> Reduce(const std::string& op, const TensorInfo& x, const std::optional<std::vector<int64_t>>& axis,
                            bool keepdims, DataType dtype) {
  if (x.ndim < 0) {
    if (!axis && !keepdims) return MakeTensorType(std::vector<PrimExpr>{}, dtype);
    return MakeTensorType(dtype, -1);
  }
  std::vector<bool> reduced(x.ndim, !axis.has_value());
  if (axis) {
    absl::StatusOr<std::vector<int>> axes = NormalizeAxes(op, *axis, x.ndim);
    if (!axes.ok()) return axes.status();
    for (int a : *axes) reduced[a] = true;
  }
  int out_ndim = 0;
  std::vector<PrimExpr> shape;
  for (int i = 0; i < x.ndim; ++i) {
    if (reduced[i] && !keepdims) continue;
    ++out_ndim;
    if (x.shape_known) shape.push_back(reduced[i] ? Dim(1) : x.shape[i]);
  }
  if (x.shape_known || out_ndim == 0) return MakeTensorType(shape, dtype);
  return MakeTensorType(dtype, out_ndim);
}

InferFn ReduceInfer(const std::string& op) {
  return [op](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "x");
    if (!x.ok()) return x.status();
    return Reduce(op, *x, IntArrayAttr(call, "axis"), BoolAttr(call, "keepdims", false), x->dtype);
  };
}

InferFn ArgReduceInfer(const std::string& op) {
  return [op](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "x");
    if (!x.ok()) return x.status();
    std::optional<std::vector<int64_t>> axes;
    if (auto a = IntAttr(call, "axis")) axes = std::vector<int64_t>{*a};
    return Reduce(op, *x, axes, BoolAttr(call, "keepdims", false), DataType::Int(64));
  };
}

InferFn ScanInfer(const std::string& op) {
  return [op](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
    if (!x.ok()) return x.status();
    DataType dtype = DTypeAttr(call, "dtype");
    if (dtype.is_void()) dtype = x->dtype;
    std::optional<int64_t> axis = IntAttr(call, "axis");
    if (!axis) {
      // No axis: the scan runs over the flattened input.
      if (x->shape_known) return MakeTensorType({Product(x->shape)}, dtype);
      return MakeTensorType(dtype, 1);
    }
    if (x->ndim >= 0) {
      absl::StatusOr<int> a = NormalizeAxis(op, *axis, x->ndim);
      if (!a.ok()) return a.status();
    }
    x->dtype = dtype;
    return MakeTensorType(*x);
  };
}

}  // namespace

void RegisterReduceOps(std::vector<OpSchema>* ops) {
  for (const char* name : {"sum", "mean", "max", "min", "prod", "std", "variance"}) {
    AddOp(ops, name, {"x"}, {OptionalIntArrayAttrSpec("axis"), BoolAttrSpec("keepdims", false)}, ReduceInfer(name));
  }
  for (const char* name : {"argmax", "argmin"}) {
    AddOp(ops, name, {"x"}, {OptionalIntAttrSpec("axis"), BoolAttrSpec("keepdims", false)}, ArgReduceInfer(name));
  }
  for (const char* name : {"cumsum", "cumprod"}) {
    AddOp(ops, name, {"data"},
          {OptionalIntAttrSpec("axis"), DTypeAttrSpec("dtype", DataType::Void()), BoolAttrSpec("exclusive", false)},
          ScanInfer(name));
  }
}

}  // namespace kiln::relax
