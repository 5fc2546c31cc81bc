// Reductions (R.sum/mean/max/min/prod/std/variance over `axis` with `keepdims`, R.median),
// R.argmax/argmin, the scans R.cumsum/cumprod, and TVM's sorting, search, set and sampling ops:
// R.sort/argsort/topk, R.bucketize, R.unique, R.nonzero and R.multinomial_from_uniform.
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

// R.median: one reduced axis gives (values, int64 indices); none or several give the values only.
absl::StatusOr<Type> InferMedian(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "median", "x");
  if (!x.ok()) return x.status();
  std::optional<std::vector<int64_t>> axis = IntArrayAttr(call, "axis");
  bool keepdims = BoolAttr(call, "keepdims", false);
  absl::StatusOr<Type> values = Reduce("median", *x, axis, keepdims, x->dtype);
  if (!values.ok() || !axis || axis->size() != 1) return values;
  absl::StatusOr<Type> indices = Reduce("median", *x, axis, keepdims, DataType::Int(64));
  if (!indices.ok()) return indices;
  return Type(TupleType({*values, *indices}));
}

absl::StatusOr<TensorInfo> SortInput(const ir::relax::Call& call, const std::string& op, const std::string& arg) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, arg);
  if (!x.ok()) return x.status();
  if (x->ndim >= 0) {
    absl::StatusOr<int> a = NormalizeAxis(op, IntAttr(call, "axis").value_or(-1), x->ndim);
    if (!a.ok()) return a.status();
  }
  return x;
}

absl::StatusOr<Type> InferSort(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = SortInput(call, "sort", "x");
  if (!x.ok()) return x.status();
  return MakeTensorType(*x);
}

absl::StatusOr<Type> InferArgsort(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = SortInput(call, "argsort", "data");
  if (!x.ok()) return x.status();
  DataType dtype = DTypeAttr(call, "dtype");
  if (!dtype.is_void()) x->dtype = dtype;
  return MakeTensorType(*x);
}

absl::StatusOr<Type> InferTopK(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = SortInput(call, "topk", "data");
  if (!x.ok()) return x.status();
  std::string ret_type = StringAttr(call, "ret_type", "both");
  if (ret_type != "both" && ret_type != "values" && ret_type != "indices") {
    return OpError("topk", "ret_type must be \"both\", \"values\" or \"indices\", got \"" + ret_type + "\"");
  }
  DataType index_dtype = DTypeAttr(call, "dtype");
  if (index_dtype.is_void()) index_dtype = x->dtype;
  TensorInfo values = *x;
  if (x->shape_known && x->ndim > 0) {
    int axis = *NormalizeAxis("topk", IntAttr(call, "axis").value_or(-1), x->ndim);
    int64_t k = IntAttr(call, "k").value_or(1);
    // k < 1 selects everything; a k beyond a constant extent keeps the extent.
    auto extent = AsConst(values.shape[axis]);
    if (k > 0 && (!extent || k < *extent)) values.shape[axis] = Dim(k);
  }
  TensorInfo indices = values;
  indices.dtype = index_dtype;
  if (ret_type == "values") return MakeTensorType(values);
  if (ret_type == "indices") return MakeTensorType(indices);
  return Type(TupleType({MakeTensorType(values), MakeTensorType(indices)}));
}

absl::StatusOr<Type> InferBucketize(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "bucketize", "input_tensor");
  if (!x.ok()) return x.status();
  absl::StatusOr<TensorInfo> b = GetTensorInfo(ArgType(call, 1), "bucketize", "boundaries");
  if (!b.ok()) return b.status();
  if (b->ndim >= 0 && b->ndim != 1) return OpError("bucketize", absl::StrCat("boundaries must be 1-D, got rank ", b->ndim));
  x->dtype = BoolAttr(call, "out_int32", false) ? DataType::Int(32) : DataType::Int(64);
  return MakeTensorType(*x);
}

// R.unique(x, sorted, return_index, return_inverse, return_counts[, axis]): the flags are constant
// prim values; each set one adds an int64 1-D result.
absl::StatusOr<Type> InferUnique(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "unique", "x");
  if (!x.ok()) return x.status();
  PrimExpr axis = PrimArgValue(call, 5);
  if (axis.defined() && x->ndim >= 0) {
    if (auto a = AsConst(axis)) {
      absl::StatusOr<int> n = NormalizeAxis("unique", *a, x->ndim);
      if (!n.ok()) return n.status();
    }
  }
  const char* flags[] = {"return_index", "return_inverse", "return_counts"};
  int extra = 0;
  for (size_t i = 0; i < 3; ++i) {
    PrimExpr f = PrimArgValue(call, 2 + i);
    std::optional<int64_t> c = f.defined() ? AsConst(f) : std::nullopt;
    if (!c) return OpError("unique", std::string(flags[i]) + " must be a constant bool");
    extra += *c != 0;
  }
  Type first = x->ndim == 0 ? MakeTensorType({Dim(1)}, x->dtype)
               : axis.defined() ? MakeTensorType(x->dtype, x->ndim) : MakeTensorType(x->dtype, 1);
  if (extra == 0) return first;
  Array<Type> fields{first};
  Type index = x->ndim == 0 ? MakeTensorType({Dim(1)}, DataType::Int(64)) : MakeTensorType(DataType::Int(64), 1);
  for (int i = 0; i < extra; ++i) fields.push_back(index);
  return Type(TupleType(fields));
}

absl::StatusOr<Type> InferNonzero(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "nonzero", "x");
  if (!x.ok()) return x.status();
  return MakeTensorType(DataType::Int(64), 2);
}

absl::StatusOr<Type> InferMultinomialFromUniform(const ir::relax::Call& call) {
  const std::string op = "multinomial_from_uniform";
  const char* names[] = {"prob", "uniform_sample", "sample_indices"};
  std::vector<TensorInfo> in;
  for (size_t i = 0; i < 3; ++i) {
    absl::StatusOr<TensorInfo> t = GetTensorInfo(ArgType(call, i), op, names[i]);
    if (!t.ok()) return t.status();
    bool want_float = i < 2;
    if (!t->dtype.is_void() && (want_float ? !t->dtype.is_floating() : !t->dtype.is_int())) {
      return OpError(op, absl::StrCat(names[i], " must have ", want_float ? "a floating-point" : "an integer",
                                      " dtype, got ", t->dtype.ToString()));
    }
    if (t->ndim >= 0 && t->ndim != 2) return OpError(op, absl::StrCat(names[i], " must be 2-D, got rank ", t->ndim));
    in.push_back(*t);
  }
  DataType dtype = DTypeAttr(call, "dtype");
  for (const TensorInfo& t : in) {
    if (t.ndim < 0) return MakeTensorType(dtype, -1);
  }
  for (const TensorInfo& t : in) {
    if (!t.shape_known) return MakeTensorType(dtype, 2);
  }
  // prob is (batch, vocab); uniform_sample and sample_indices are (n, 1).
  for (size_t i = 1; i < 3; ++i) {
    if (ProveNotEqual(in[i].shape[1], Dim(1))) return OpError(op, absl::StrCat(names[i], " must have shape (n, 1)"));
  }
  if (ProveNotEqual(in[1].shape[0], in[2].shape[0])) {
    return OpError(op, "uniform_sample and sample_indices must have the same number of rows");
  }
  return MakeTensorType({in[1].shape[0], Dim(1)}, dtype);
}

}  // namespace

void RegisterReduceOps(std::vector<OpSchema>* ops) {
  for (const char* name : {"sum", "mean", "max", "min", "prod", "std", "variance"}) {
    AddOp(ops, name, {"x"}, {OptionalIntArrayAttrSpec("axis"), BoolAttrSpec("keepdims", false)}, ReduceInfer(name));
  }
  for (const char* name : {"argmax", "argmin"}) {
    AddOp(ops, name, {"x"}, {OptionalIntAttrSpec("axis"), BoolAttrSpec("keepdims", false)}, ArgReduceInfer(name));
  }
  AddOp(ops, "median", {"x"}, {OptionalIntArrayAttrSpec("axis"), BoolAttrSpec("keepdims", false)}, InferMedian);
  AddOp(ops, "sort", {"x"}, {IntAttrSpec("axis", -1), BoolAttrSpec("descending", false)}, InferSort);
  AddOp(ops, "argsort", {"data"},
        {IntAttrSpec("axis", -1), BoolAttrSpec("descending", false), DTypeAttrSpec("dtype", DataType::Int(32))},
        InferArgsort);
  AddOp(ops, "topk", {"data"},
        {IntAttrSpec("k", 1), IntAttrSpec("axis", -1), StringAttrSpec("ret_type", "both"), BoolAttrSpec("largest", true),
         DTypeAttrSpec("dtype", DataType::Int(32))},
        InferTopK);
  AddOp(ops, "bucketize", {"input_tensor", "boundaries"},
        {BoolAttrSpec("out_int32", false), BoolAttrSpec("right", false)}, InferBucketize);
  OpSchema& unique = AddOp(ops, "unique", {"x", "sorted", "return_index", "return_inverse", "return_counts", "axis"}, {},
                           InferUnique);
  unique.min_args = 1;
  unique.arg_defaults = {ir::relax::PrimValue(IntImm(DataType::Bool(), 1)), ir::relax::PrimValue(IntImm(DataType::Bool(), 0)),
                         ir::relax::PrimValue(IntImm(DataType::Bool(), 0)), ir::relax::PrimValue(IntImm(DataType::Bool(), 0))};
  AddOp(ops, "nonzero", {"x"}, {}, InferNonzero);
  AddOp(ops, "multinomial_from_uniform", {"prob", "uniform_sample", "sample_indices"},
        {DTypeAttrSpec("dtype", DataType::Int(64))}, InferMultinomialFromUniform);
  for (const char* name : {"cumsum", "cumprod"}) {
    AttrSpec exclusive = BoolAttrSpec("exclusive", false);
    exclusive.none_is_default = true;
    AddOp(ops, name, {"data"}, {OptionalIntAttrSpec("axis"), DTypeAttrSpec("dtype", DataType::Void()), exclusive},
          ScanInfer(name));
  }
}

}  // namespace kiln::relax
