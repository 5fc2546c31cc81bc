// Shape manipulation: R.reshape (with -1), permute_dims, expand_dims, squeeze, flatten, concat,
// split, broadcast_to, collapse_sum_to, flip.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

absl::StatusOr<Type> InferReshape(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "reshape", "x");
  if (!x.ok()) return x.status();
  std::vector<PrimExpr> target;
  int ndim = -1;
  if (!GetShapeValues(call->args[1], &target, &ndim)) {
    if (!call->args[1]->ty.defined() && !call->args[1].as<ir::relax::ShapeExprNode>() &&
        !ExprType(call->args[1]).as<ShapeTypeNode>()) {
      return OpError("reshape", "expects a shape for argument 'shape', got " + TypeToString(ExprType(call->args[1])));
    }
    return MakeTensorType(x->dtype, ndim);
  }
  int infer_at = -1;
  std::vector<PrimExpr> known;
  for (size_t i = 0; i < target.size(); ++i) {
    auto c = AsConst(target[i]);
    if (c && *c == -1) {
      if (infer_at >= 0) return OpError("reshape", "at most one dimension of the new shape can be -1");
      infer_at = static_cast<int>(i);
      continue;
    }
    if (c && *c < -1) return OpError("reshape", absl::StrCat("invalid dimension ", *c, " in the new shape"));
    known.push_back(target[i]);
  }
  PrimExpr want = Product(known);
  if (infer_at >= 0) {
    if (!x->shape_known) return MakeTensorType(x->dtype, static_cast<int>(target.size()));
    PrimExpr have = Product(x->shape);
    auto ch = AsConst(have), cw = AsConst(want);
    if (ch && cw && (*cw == 0 || *ch % *cw != 0)) {
      return OpError("reshape", absl::StrCat("cannot reshape a tensor of shape ", ShapeToString(x->shape), " (",
                                             *ch, " elements) into shape ", ShapeToString(target)));
    }
    target[infer_at] = FloorDivDim(have, want);
  } else if (x->shape_known) {
    PrimExpr have = Product(x->shape);
    if (ProveNotEqual(have, want)) {
      return OpError("reshape", absl::StrCat("cannot reshape a tensor of shape ", ShapeToString(x->shape), " (",
                                             DimToString(have), " elements) into shape ", ShapeToString(target),
                                             " (", DimToString(want), " elements)"));
    }
  }
  return MakeTensorType(target, x->dtype);
}

absl::StatusOr<Type> InferPermuteDims(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "permute_dims", "x");
  if (!x.ok()) return x.status();
  std::optional<std::vector<int64_t>> axes = IntArrayAttr(call, "axes");
  if (x->ndim < 0) return MakeTensorType(x->dtype, axes ? static_cast<int>(axes->size()) : -1);
  std::vector<int> perm;
  if (axes) {
    if (static_cast<int>(axes->size()) != x->ndim) {
      return OpError("permute_dims", absl::StrCat("axes has ", axes->size(), " entries for a tensor of rank ", x->ndim));
    }
    absl::StatusOr<std::vector<int>> n = NormalizeAxes("permute_dims", *axes, x->ndim);
    if (!n.ok()) return n.status();
    perm = *n;
  } else {
    for (int i = x->ndim - 1; i >= 0; --i) perm.push_back(i);
  }
  if (!x->shape_known) return MakeTensorType(*x);
  std::vector<PrimExpr> shape;
  for (int p : perm) shape.push_back(x->shape[p]);
  return MakeTensorType(shape, x->dtype);
}

absl::StatusOr<Type> InferExpandDims(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "expand_dims", "x");
  if (!x.ok()) return x.status();
  std::vector<int64_t> axis = IntArrayAttr(call, "axis").value_or(std::vector<int64_t>{});
  if (x->ndim < 0) return MakeTensorType(x->dtype, -1);
  int out_ndim = x->ndim + static_cast<int>(axis.size());
  absl::StatusOr<std::vector<int>> axes = NormalizeAxes("expand_dims", axis, out_ndim);
  if (!axes.ok()) return axes.status();
  if (!x->shape_known) return MakeTensorType(x->dtype, out_ndim);
  std::vector<PrimExpr> shape;
  size_t next = 0;
  for (int i = 0; i < out_ndim; ++i) {
    if (std::find(axes->begin(), axes->end(), i) != axes->end()) {
      shape.push_back(Dim(1));
    } else {
      shape.push_back(x->shape[next++]);
    }
  }
  return MakeTensorType(shape, x->dtype);
}

absl::StatusOr<Type> InferSqueeze(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "squeeze", "x");
  if (!x.ok()) return x.status();
  std::optional<std::vector<int64_t>> axis = IntArrayAttr(call, "axis");
  if (x->ndim < 0) return MakeTensorType(x->dtype, -1);
  std::vector<bool> drop(x->ndim, false);
  if (axis) {
    absl::StatusOr<std::vector<int>> axes = NormalizeAxes("squeeze", *axis, x->ndim);
    if (!axes.ok()) return axes.status();
    for (int a : *axes) {
      if (x->shape_known) {
        auto c = AsConst(x->shape[a]);
        if (c && *c != 1) return OpError("squeeze", absl::StrCat("dimension ", a, " has size ", *c, ", not 1"));
      }
      drop[a] = true;
    }
  } else {
    // Without axes every unit dimension goes; a symbolic one makes the result rank unknown.
    if (!x->shape_known) return MakeTensorType(x->dtype, -1);
    for (int i = 0; i < x->ndim; ++i) {
      auto c = AsConst(x->shape[i]);
      if (!c) return MakeTensorType(x->dtype, -1);
      drop[i] = *c == 1;
    }
  }
  int out_ndim = static_cast<int>(std::count(drop.begin(), drop.end(), false));
  if (!x->shape_known) return MakeTensorType(x->dtype, out_ndim);
  std::vector<PrimExpr> shape;
  for (int i = 0; i < x->ndim; ++i) {
    if (!drop[i]) shape.push_back(x->shape[i]);
  }
  return MakeTensorType(shape, x->dtype);
}

absl::StatusOr<Type> InferFlatten(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "flatten", "x");
  if (!x.ok()) return x.status();
  if (!x->shape_known) return MakeTensorType(x->dtype, 1);
  return MakeTensorType({Product(x->shape)}, x->dtype);
}

absl::StatusOr<Type> InferConcat(const ir::relax::Call& call) {
  Type t = ArgType(call, 0);
  const auto* tup = t.as<TupleTypeNode>();
  if (tup == nullptr) {
    if (!t.defined() || t.as<AnyTypeNode>()) return MakeTensorType(DataType::Void(), -1);
    return OpError("concat", "expects a tuple of tensors, got " + TypeToString(t));
  }
  if (tup->fields.empty()) return OpError("concat", "expects at least one tensor");
  std::vector<TensorInfo> ins;
  for (size_t i = 0; i < tup->fields.size(); ++i) {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(tup->fields[i], "concat", absl::StrCat("tensors[", i, "]"));
    if (!x.ok()) return x.status();
    ins.push_back(*x);
  }
  DataType dtype = DataType::Void();
  int ndim = -1;
  for (const TensorInfo& x : ins) {
    if (!x.dtype.is_void()) {
      if (!dtype.is_void() && dtype != x.dtype) {
        return OpError("concat", "dtype mismatch: " + dtype.ToString() + " vs " + x.dtype.ToString());
      }
      dtype = x.dtype;
    }
    if (x.ndim >= 0) {
      if (ndim >= 0 && ndim != x.ndim) return OpError("concat", absl::StrCat("rank mismatch: ", ndim, " vs ", x.ndim));
      ndim = x.ndim;
    }
  }
  std::optional<int64_t> axis_attr = IntAttr(call, "axis");
  if (!axis_attr) {
    // axis=None concatenates the flattened inputs.
    PrimExpr total = Dim(0);
    for (const TensorInfo& x : ins) {
      if (!x.shape_known) return MakeTensorType(dtype, 1);
      total = AddDim(total, Product(x.shape));
    }
    return MakeTensorType({total}, dtype);
  }
  if (ndim < 0) return MakeTensorType(dtype, -1);
  if (ndim == 0) return OpError("concat", "cannot concatenate 0-d tensors");
  absl::StatusOr<int> axis = NormalizeAxis("concat", *axis_attr, ndim);
  if (!axis.ok()) return axis.status();
  for (const TensorInfo& x : ins) {
    if (!x.shape_known) return MakeTensorType(dtype, ndim);
  }
  std::vector<PrimExpr> shape = ins[0].shape;
  for (size_t k = 1; k < ins.size(); ++k) {
    for (int i = 0; i < ndim; ++i) {
      if (i == *axis) {
        shape[i] = AddDim(shape[i], ins[k].shape[i]);
      } else if (ProveNotEqual(shape[i], ins[k].shape[i])) {
        return OpError("concat", absl::StrCat("shape mismatch in dimension ", i, ": ", ShapeToString(ins[0].shape),
                                              " vs ", ShapeToString(ins[k].shape)));
      }
    }
  }
  return MakeTensorType(shape, dtype);
}

absl::StatusOr<Type> InferSplit(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "split", "x");
  if (!x.ok()) return x.status();
  int64_t axis_attr = IntAttr(call, "axis").value_or(0);
  std::optional<int64_t> sections = IntAttr(call, "indices_or_sections");
  std::vector<int64_t> indices;
  if (!sections) indices = IntArrayAttr(call, "indices_or_sections").value_or(std::vector<int64_t>{});
  size_t count = sections ? static_cast<size_t>(std::max<int64_t>(*sections, 0)) : indices.size() + 1;
  if (sections && *sections <= 0) return OpError("split", "the number of sections must be positive");
  Array<Type> fields;
  if (x->ndim < 0) {
    for (size_t i = 0; i < count; ++i) fields.push_back(MakeTensorType(x->dtype, -1));
    return Type(TupleType(fields));
  }
  absl::StatusOr<int> axis = NormalizeAxis("split", axis_attr, x->ndim);
  if (!axis.ok()) return axis.status();
  if (!x->shape_known) {
    for (size_t i = 0; i < count; ++i) fields.push_back(MakeTensorType(x->dtype, x->ndim));
    return Type(TupleType(fields));
  }
  PrimExpr dim = x->shape[*axis];
  auto cdim = AsConst(dim);
  std::vector<PrimExpr> sizes;
  if (sections) {
    if (cdim && *cdim % *sections != 0) {
      return OpError("split", absl::StrCat("dimension ", *axis, " of size ", *cdim, " cannot be split into ",
                                           *sections, " equal sections"));
    }
    for (size_t i = 0; i < count; ++i) sizes.push_back(FloorDivDim(AddDim(dim, Dim(*sections - 1)), Dim(*sections)));
  } else {
    PrimExpr prev = Dim(0);
    int64_t prev_c = 0;
    for (int64_t idx : indices) {
      if (idx < prev_c) return OpError("split", "indices must be ascending");
      if (cdim) idx = std::min(idx, *cdim);
      sizes.push_back(SubDim(Dim(idx), prev));
      prev = Dim(idx);
      prev_c = idx;
    }
    sizes.push_back(cdim ? Dim(std::max<int64_t>(*cdim - prev_c, 0)) : SubDim(dim, prev));
  }
  for (const PrimExpr& s : sizes) {
    std::vector<PrimExpr> shape = x->shape;
    shape[*axis] = s;
    fields.push_back(MakeTensorType(shape, x->dtype));
  }
  return Type(TupleType(fields));
}

// R.broadcast_to(x, shape) and R.collapse_sum_to(x, shape): the result has the target shape.
InferFn ToShapeInfer(const std::string& op, bool check_broadcast) {
  return [op, check_broadcast](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "x");
    if (!x.ok()) return x.status();
    std::vector<PrimExpr> target;
    int ndim = -1;
    if (!GetShapeValues(call->args[1], &target, &ndim)) return MakeTensorType(x->dtype, ndim);
    const std::vector<PrimExpr>& from = check_broadcast ? x->shape : target;
    const std::vector<PrimExpr>& to = check_broadcast ? target : x->shape;
    if (x->shape_known) {
      if (from.size() > to.size()) {
        return OpError(op, absl::StrCat("cannot broadcast shape ", ShapeToString(from), " to ", ShapeToString(to)));
      }
      for (size_t i = 0; i < from.size(); ++i) {
        const PrimExpr& f = from[from.size() - 1 - i];
        const PrimExpr& t = to[to.size() - 1 - i];
        auto cf = AsConst(f);
        if ((!cf || *cf != 1) && ProveNotEqual(f, t)) {
          return OpError(op, absl::StrCat("cannot broadcast shape ", ShapeToString(from), " to ", ShapeToString(to)));
        }
      }
    }
    return MakeTensorType(target, x->dtype);
  };
}

absl::StatusOr<Type> InferFlip(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "flip", "data");
  if (!x.ok()) return x.status();
  if (x->ndim >= 0) {
    absl::StatusOr<int> a = NormalizeAxis("flip", IntAttr(call, "axis").value_or(0), x->ndim);
    if (!a.ok()) return a.status();
  }
  return MakeTensorType(*x);
}

}  // namespace

void RegisterManipulateOps(std::vector<OpSchema>* ops) {
  AddOp(ops, "reshape", {"x", "shape"}, {}, InferReshape);
  AddOp(ops, "permute_dims", {"x"}, {OptionalIntArrayAttrSpec("axes")}, InferPermuteDims);
  AddOp(ops, "expand_dims", {"x"}, {RequiredIntArrayAttrSpec("axis")}, InferExpandDims);
  AddOp(ops, "squeeze", {"x"}, {OptionalIntArrayAttrSpec("axis")}, InferSqueeze);
  AddOp(ops, "flatten", {"x"}, {}, InferFlatten);
  AddOp(ops, "concat", {"tensors"}, {{"axis", AttrSpec::Kind::kOptionalInt, IntImm(DataType::Int(64), 0)}},
        InferConcat);
  AddOp(ops, "split", {"x"},
        {{"indices_or_sections", AttrSpec::Kind::kIntOrIntArray, ObjectRef()}, IntAttrSpec("axis", 0)}, InferSplit);
  AddOp(ops, "broadcast_to", {"x", "shape"}, {}, ToShapeInfer("broadcast_to", true));
  AddOp(ops, "collapse_sum_to", {"data", "shape"}, {}, ToShapeInfer("collapse_sum_to", false));
  AddOp(ops, "flip", {"data"}, {RequiredIntAttrSpec("axis")}, InferFlip);
}

}  // namespace kiln::relax
