// Shape manipulation: R.reshape (with -1), permute_dims, expand_dims, squeeze, flatten, concat,
// stack, split, broadcast_to, collapse_sum_to/like, flip, repeat, tile, reverse_sequence,
// meshgrid, one_hot, and the gather/scatter family (gather_elements, gather_nd, scatter_elements,
// scatter_nd, slice_scatter, index_tensor, index_put), grouped here as TVM groups them.
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"
#include "compiler/tir/arith/analyzer.h"

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
      // As in TVM (and PyTorch), a listed axis whose size is a constant other than 1 stays.
      if (x->shape_known) {
        auto c = AsConst(x->shape[a]);
        if (c && *c != 1) continue;
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

// TVM's rules: n sections are ceil(dim / n) long except the last, which takes the rest (so uneven
// splits are allowed); indices are clamped to [0, dim] and a piece between decreasing indices is
// empty. One section, or no indices, gives the input's type rather than a tuple.
absl::StatusOr<Type> InferSplit(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "split", "x");
  if (!x.ok()) return x.status();
  int64_t axis_attr = IntAttr(call, "axis").value_or(0);
  std::optional<int64_t> sections = IntAttr(call, "indices_or_sections");
  std::vector<int64_t> indices;
  if (!sections) indices = IntArrayAttr(call, "indices_or_sections").value_or(std::vector<int64_t>{});
  if (sections && *sections <= 0) return OpError("split", "the number of sections must be positive");
  size_t count = sections ? static_cast<size_t>(*sections) : indices.size() + 1;
  if (count == 1) return ArgType(call, 0);
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
    int64_t n = *sections;
    if (cdim) {
      int64_t len = (*cdim + n - 1) / n;
      for (int64_t i = 0; i + 1 < n; ++i) sizes.push_back(Dim(len));
      sizes.push_back(Dim(*cdim - len * (n - 1)));
    } else {
      PrimExpr len = FloorDivDim(AddDim(dim, Dim(n - 1)), Dim(n));
      for (int64_t i = 0; i + 1 < n; ++i) sizes.push_back(len);
      sizes.push_back(SubDim(dim, MulDim(len, Dim(n - 1))));
    }
  } else {
    // With a symbolic dim the indices are taken to be in bounds.
    auto clamp = [&](int64_t v) { return std::max<int64_t>(cdim ? std::min(v, *cdim) : v, 0); };
    int64_t prev = 0;
    for (int64_t idx : indices) {
      sizes.push_back(Dim(std::max<int64_t>(clamp(idx) - prev, 0)));
      prev = clamp(idx);
    }
    sizes.push_back(cdim ? Dim(std::max<int64_t>(*cdim - prev, 0)) : SubDim(dim, Dim(prev)));
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


absl::StatusOr<Type> InferStack(const ir::relax::Call& call) {
  absl::StatusOr<std::optional<std::vector<TensorInfo>>> ins = GetTupleTensorInfos(call, 0, "stack", "tensors");
  if (!ins.ok()) return ins.status();
  if (!ins->has_value()) return MakeTensorType(DataType::Void(), -1);
  const std::vector<TensorInfo>& xs = **ins;
  if (xs.empty()) return OpError("stack", "expects at least one tensor");
  absl::StatusOr<DataType> dtype = CommonDType("stack", xs);
  if (!dtype.ok()) return dtype.status();
  int ndim = -1;
  for (const TensorInfo& x : xs) {
    if (x.ndim < 0) continue;
    if (ndim >= 0 && ndim != x.ndim) return OpError("stack", absl::StrCat("rank mismatch: ", ndim, " vs ", x.ndim));
    ndim = x.ndim;
  }
  if (ndim < 0) return MakeTensorType(*dtype, -1);
  absl::StatusOr<int> axis = NormalizeAxis("stack", IntAttr(call, "axis").value_or(0), ndim + 1);
  if (!axis.ok()) return axis.status();
  bool known = true;
  for (const TensorInfo& x : xs) known &= x.shape_known;
  if (!known) return MakeTensorType(*dtype, ndim + 1);
  for (size_t k = 1; k < xs.size(); ++k) {
    for (int d = 0; d < ndim; ++d) {
      if (ProveNotEqual(xs[0].shape[d], xs[k].shape[d])) {
        return OpError("stack", absl::StrCat("all tensors must have the same shape: ", ShapeToString(xs[0].shape), " vs ",
                                             ShapeToString(xs[k].shape)));
      }
      if (!ProveEqual(xs[0].shape[d], xs[k].shape[d])) known = false;
    }
  }
  if (!known) return MakeTensorType(*dtype, ndim + 1);
  std::vector<PrimExpr> shape = xs[0].shape;
  shape.insert(shape.begin() + *axis, Dim(static_cast<int64_t>(xs.size())));
  return MakeTensorType(shape, *dtype);
}

absl::StatusOr<Type> InferCollapseSumLike(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "collapse_sum_like", "data");
  if (!x.ok()) return x.status();
  absl::StatusOr<TensorInfo> t = GetTensorInfo(ArgType(call, 1), "collapse_sum_like", "collapse_target");
  if (!t.ok()) return t.status();
  if (x->shape_known && t->shape_known) {
    bool unknown = false;
    absl::StatusOr<std::vector<PrimExpr>> b = BroadcastShapes("collapse_sum_like", t->shape, x->shape, &unknown);
    if (!b.ok() || b->size() != x->shape.size()) {
      return OpError("collapse_sum_like", "cannot collapse shape " + ShapeToString(x->shape) + " to " +
                                              ShapeToString(t->shape));
    }
  }
  TensorInfo out = *t;
  out.dtype = x->dtype;
  return MakeTensorType(out);
}

absl::StatusOr<Type> InferRepeat(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "repeat", "data");
  if (!x.ok()) return x.status();
  int64_t repeats = IntAttr(call, "repeats").value_or(1);
  if (repeats <= 0) return OpError("repeat", absl::StrCat("repeats must be positive, got ", repeats));
  std::optional<int64_t> axis_attr = IntAttr(call, "axis");
  if (!axis_attr) {
    // Without an axis the input is flattened first.
    if (!x->shape_known) return MakeTensorType(x->dtype, 1);
    return MakeTensorType({MulDim(Product(x->shape), Dim(repeats))}, x->dtype);
  }
  if (x->ndim < 0) return MakeTensorType(*x);
  absl::StatusOr<int> axis = NormalizeAxis("repeat", *axis_attr, x->ndim);
  if (!axis.ok()) return axis.status();
  if (!x->shape_known) return MakeTensorType(*x);
  x->shape[*axis] = MulDim(x->shape[*axis], Dim(repeats));
  return MakeTensorType(*x);
}

absl::StatusOr<Type> InferTile(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "tile", "data");
  if (!x.ok()) return x.status();
  std::vector<int64_t> reps = IntArrayAttr(call, "repeats").value_or(std::vector<int64_t>{});
  for (int64_t r : reps) {
    if (r < 0) return OpError("tile", absl::StrCat("repeats must be non-negative, got ", r));
  }
  int l = static_cast<int>(reps.size());
  if (x->ndim < 0) return MakeTensorType(x->dtype, -1);
  int out_ndim = std::max(l, x->ndim);
  if (!x->shape_known) return MakeTensorType(x->dtype, out_ndim);
  // Both sides are right-aligned; the shorter one counts as padded with ones in front.
  std::vector<PrimExpr> shape;
  for (int i = 0; i < out_ndim; ++i) {
    int xi = i - (out_ndim - x->ndim), ri = i - (out_ndim - l);
    PrimExpr d = xi >= 0 ? x->shape[xi] : Dim(1);
    shape.push_back(ri >= 0 ? MulDim(d, Dim(reps[ri])) : d);
  }
  return MakeTensorType(shape, x->dtype);
}

absl::StatusOr<Type> InferReverseSequence(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "reverse_sequence", "data");
  if (!x.ok()) return x.status();
  absl::StatusOr<TensorInfo> len = GetTensorInfo(ArgType(call, 1), "reverse_sequence", "seq_lengths");
  if (!len.ok()) return len.status();
  if (len->ndim >= 0 && len->ndim != 1) return OpError("reverse_sequence", "seq_lengths must be 1-D");
  if (!len->dtype.is_void() && !len->dtype.is_int()) {
    return OpError("reverse_sequence", "seq_lengths must have an integer dtype, got " + len->dtype.ToString());
  }
  if (x->ndim >= 0) {
    absl::StatusOr<int> seq = NormalizeAxis("reverse_sequence", IntAttr(call, "seq_axis").value_or(1), x->ndim);
    if (!seq.ok()) return seq.status();
    absl::StatusOr<int> batch = NormalizeAxis("reverse_sequence", IntAttr(call, "batch_axis").value_or(0), x->ndim);
    if (!batch.ok()) return batch.status();
    if (*seq == *batch) return OpError("reverse_sequence", "seq_axis and batch_axis must differ");
    if (x->shape_known && len->shape_known && ProveNotEqual(x->shape[*batch], len->shape[0])) {
      return OpError("reverse_sequence", "seq_lengths has " + DimToString(len->shape[0]) +
                                             " entries but the batch dimension is " + DimToString(x->shape[*batch]));
    }
  }
  return MakeTensorType(*x);
}

absl::Status CheckIntegerIndices(const std::string& op, const TensorInfo& idx) {
  if (!idx.dtype.is_void() && !idx.dtype.is_int() && !idx.dtype.is_uint()) {
    return OpError(op, "indices must have an integer dtype, got " + idx.dtype.ToString());
  }
  return absl::OkStatus();
}

absl::StatusOr<Type> InferGatherElements(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "gather_elements", "data");
  if (!x.ok()) return x.status();
  absl::StatusOr<TensorInfo> idx = GetTensorInfo(ArgType(call, 1), "gather_elements", "indices");
  if (!idx.ok()) return idx.status();
  absl::Status st = CheckIntegerIndices("gather_elements", *idx);
  if (!st.ok()) return st;
  if (x->ndim >= 0 && idx->ndim >= 0 && x->ndim != idx->ndim) {
    return OpError("gather_elements", absl::StrCat("data and indices must have the same rank, got ", x->ndim, " and ",
                                                   idx->ndim));
  }
  int ndim = x->ndim >= 0 ? x->ndim : idx->ndim;
  if (ndim >= 0) {
    absl::StatusOr<int> axis = NormalizeAxis("gather_elements", IntAttr(call, "axis").value_or(0), ndim);
    if (!axis.ok()) return axis.status();
  }
  TensorInfo out = *idx;
  out.dtype = x->dtype;
  out.ndim = ndim;
  return MakeTensorType(out);
}

absl::StatusOr<Type> InferGatherND(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "gather_nd", "data");
  if (!x.ok()) return x.status();
  absl::StatusOr<TensorInfo> idx = GetTensorInfo(ArgType(call, 1), "gather_nd", "indices");
  if (!idx.ok()) return idx.status();
  absl::Status st = CheckIntegerIndices("gather_nd", *idx);
  if (!st.ok()) return st;
  int64_t batch = IntAttr(call, "batch_dims").value_or(0);
  if (batch < 0) return OpError("gather_nd", "batch_dims must be non-negative");
  if (idx->ndim == 0) return OpError("gather_nd", "indices must have rank >= 1");
  if (x->ndim >= 0 && batch > x->ndim) return OpError("gather_nd", "batch_dims exceeds the rank of data");
  if (x->ndim < 0 || idx->ndim < 0 || !idx->shape_known) return MakeTensorType(x->dtype, -1);
  // indices[..., :] addresses the first m dims of data after the batch dims.
  auto m = AsConst(idx->shape.back());
  if (!m) return MakeTensorType(x->dtype, -1);
  if (batch + *m > x->ndim) {
    return OpError("gather_nd", absl::StrCat("indices address ", *m, " dimensions after ", batch,
                                             " batch dimension(s) of a tensor of rank ", x->ndim));
  }
  int out_ndim = idx->ndim - 1 + x->ndim - static_cast<int>(batch + *m);
  if (!x->shape_known) return MakeTensorType(x->dtype, out_ndim);
  for (int64_t b = 0; b < batch; ++b) {
    if (ProveNotEqual(x->shape[b], idx->shape[b])) return OpError("gather_nd", "batch dimensions of data and indices differ");
  }
  std::vector<PrimExpr> shape(idx->shape.begin(), idx->shape.end() - 1);
  shape.insert(shape.end(), x->shape.begin() + batch + *m, x->shape.end());
  return MakeTensorType(shape, x->dtype);
}

// scatter_elements / scatter_nd / index_put / slice_scatter: the result is data's type; the
// updates must share its dtype.
absl::StatusOr<TensorInfo> ScatterCommon(const ir::relax::Call& call, const std::string& op, const std::string& data_name,
                                         size_t updates_i, const std::string& updates_name) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, data_name);
  if (!x.ok()) return x.status();
  absl::StatusOr<TensorInfo> u = GetTensorInfo(ArgType(call, updates_i), op, updates_name);
  if (!u.ok()) return u.status();
  if (!x->dtype.is_void() && !u->dtype.is_void() && x->dtype != u->dtype) {
    return OpError(op, absl::StrCat(data_name, " and ", updates_name, " must have the same dtype, got ",
                                    x->dtype.ToString(), " and ", u->dtype.ToString()));
  }
  return *x;
}

absl::Status CheckReduction(const std::string& op, const std::string& r, const std::vector<std::string>& allowed) {
  for (const std::string& a : allowed) {
    if (a == r) return absl::OkStatus();
  }
  return OpError(op, "unsupported reduction \"" + r + "\"");
}

absl::StatusOr<Type> InferScatterElements(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = ScatterCommon(call, "scatter_elements", "data", 2, "updates");
  if (!x.ok()) return x.status();
  absl::StatusOr<TensorInfo> idx = GetTensorInfo(ArgType(call, 1), "scatter_elements", "indices");
  if (!idx.ok()) return idx.status();
  absl::Status st = CheckIntegerIndices("scatter_elements", *idx);
  if (!st.ok()) return st;
  st = CheckReduction("scatter_elements", StringAttr(call, "reduction", "update"),
                      {"update", "add", "mul", "mean", "max", "min"});
  if (!st.ok()) return st;
  absl::StatusOr<TensorInfo> u = GetTensorInfo(ArgType(call, 2), "scatter_elements", "updates");
  if (x->ndim >= 0 && idx->ndim >= 0 && x->ndim != idx->ndim) {
    return OpError("scatter_elements", "data and indices must have the same rank");
  }
  if (idx->shape_known && u->shape_known) {
    bool bad = idx->shape.size() != u->shape.size();
    for (size_t i = 0; !bad && i < idx->shape.size(); ++i) bad = ProveNotEqual(idx->shape[i], u->shape[i]);
    if (bad) return OpError("scatter_elements", "indices and updates must have the same shape");
  }
  if (x->ndim >= 0) {
    absl::StatusOr<int> axis = NormalizeAxis("scatter_elements", IntAttr(call, "axis").value_or(0), x->ndim);
    if (!axis.ok()) return axis.status();
  }
  return MakeTensorType(*x);
}

absl::StatusOr<Type> InferScatterND(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = ScatterCommon(call, "scatter_nd", "data", 2, "updates");
  if (!x.ok()) return x.status();
  absl::StatusOr<TensorInfo> idx = GetTensorInfo(ArgType(call, 1), "scatter_nd", "indices");
  if (!idx.ok()) return idx.status();
  absl::Status st = CheckIntegerIndices("scatter_nd", *idx);
  if (!st.ok()) return st;
  st = CheckReduction("scatter_nd", StringAttr(call, "reduction", "update"), {"update", "add", "mul", "min", "max"});
  if (!st.ok()) return st;
  absl::StatusOr<TensorInfo> u = GetTensorInfo(ArgType(call, 2), "scatter_nd", "updates");
  // updates.shape == indices.shape[:-1] + data.shape[indices.shape[-1]:]
  if (x->shape_known && idx->shape_known && u->shape_known && !idx->shape.empty()) {
    if (auto m = AsConst(idx->shape.back())) {
      if (*m > x->ndim) return OpError("scatter_nd", "indices address more dimensions than data has");
      std::vector<PrimExpr> want(idx->shape.begin(), idx->shape.end() - 1);
      want.insert(want.end(), x->shape.begin() + *m, x->shape.end());
      bool bad = want.size() != u->shape.size();
      for (size_t i = 0; !bad && i < want.size(); ++i) bad = ProveNotEqual(want[i], u->shape[i]);
      if (bad) {
        return OpError("scatter_nd", "updates has shape " + ShapeToString(u->shape) + ", expected " + ShapeToString(want));
      }
    }
  }
  return MakeTensorType(*x);
}

absl::StatusOr<Type> InferSliceScatter(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = ScatterCommon(call, "slice_scatter", "input_tensor", 1, "src");
  if (!x.ok()) return x.status();
  absl::StatusOr<TensorInfo> src = GetTensorInfo(ArgType(call, 1), "slice_scatter", "src");
  if (x->ndim >= 0 && src->ndim >= 0 && x->ndim != src->ndim) {
    return OpError("slice_scatter", "input_tensor and src must have the same rank");
  }
  if (x->ndim < 0) return MakeTensorType(*x);
  absl::StatusOr<int> axis = NormalizeAxis("slice_scatter", IntAttr(call, "axis").value_or(0), x->ndim);
  if (!axis.ok()) return axis.status();
  auto step = AsConst(Simplify(PrimArgValue(call, 4).defined() ? PrimArgValue(call, 4) : Dim(1)));
  if (step && *step <= 0) return OpError("slice_scatter", "step must be positive");
  if (x->shape_known && src->shape_known) {
    for (int d = 0; d < x->ndim; ++d) {
      if (d != *axis && ProveNotEqual(x->shape[d], src->shape[d])) {
        return OpError("slice_scatter", absl::StrCat("src differs from input_tensor in dimension ", d));
      }
    }
    PrimExpr start = PrimArgValue(call, 2), end = PrimArgValue(call, 3);
    auto cs = start.defined() ? AsConst(Simplify(start)) : std::nullopt;
    auto ce = end.defined() ? AsConst(Simplify(end)) : std::nullopt;
    if (cs && ce && step) {
      int64_t n = *ce > *cs ? (*ce - *cs + *step - 1) / *step : 0;
      if (ProveNotEqual(src->shape[*axis], Dim(n))) {
        return OpError("slice_scatter", absl::StrCat("src has ", DimToString(src->shape[*axis]),
                                                     " elements along the axis but the slice has ", n));
      }
    }
  }
  return MakeTensorType(*x);
}

absl::StatusOr<Type> InferIndexTensor(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "index_tensor", "data");
  if (!x.ok()) return x.status();
  absl::StatusOr<std::optional<std::vector<TensorInfo>>> ins = GetTupleTensorInfos(call, 1, "index_tensor", "indices");
  if (!ins.ok()) return ins.status();
  if (!ins->has_value()) return MakeTensorType(x->dtype, -1);
  const std::vector<TensorInfo>& idx = **ins;
  if (idx.empty()) return OpError("index_tensor", "expects at least one index tensor");
  for (const TensorInfo& i : idx) {
    if (!i.dtype.is_void() && !i.dtype.is_int()) {
      return OpError("index_tensor", "index tensors must have an integer dtype, got " + i.dtype.ToString());
    }
  }
  int n = static_cast<int>(idx.size());
  if (x->ndim >= 0 && n > x->ndim) {
    return OpError("index_tensor", absl::StrCat(n, " index tensors for a tensor of rank ", x->ndim));
  }
  // The index tensors broadcast together; the remaining data dims follow.
  TensorInfo b = idx[0];
  for (int k = 1; k < n; ++k) {
    absl::StatusOr<TensorInfo> r = BroadcastInfos("index_tensor", b, idx[k]);
    if (!r.ok()) return r.status();
    b = *r;
  }
  if (x->ndim < 0 || b.ndim < 0) return MakeTensorType(x->dtype, -1);
  int out_ndim = b.ndim + x->ndim - n;
  if (!b.shape_known || !x->shape_known) return MakeTensorType(x->dtype, out_ndim);
  std::vector<PrimExpr> shape = b.shape;
  shape.insert(shape.end(), x->shape.begin() + n, x->shape.end());
  return MakeTensorType(shape, x->dtype);
}

absl::StatusOr<Type> InferIndexPut(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = ScatterCommon(call, "index_put", "data", 2, "values");
  if (!x.ok()) return x.status();
  absl::StatusOr<std::optional<std::vector<TensorInfo>>> ins = GetTupleTensorInfos(call, 1, "index_put", "indices");
  if (!ins.ok()) return ins.status();
  if (ins->has_value()) {
    if ((*ins)->empty()) return OpError("index_put", "expects at least one index tensor");
    if (x->ndim >= 0 && static_cast<int>((*ins)->size()) > x->ndim) {
      return OpError("index_put", absl::StrCat((*ins)->size(), " index tensors for a tensor of rank ", x->ndim));
    }
    for (const TensorInfo& i : **ins) {
      absl::Status st = CheckIntegerIndices("index_put", i);
      if (!st.ok()) return st;
    }
  }
  return MakeTensorType(*x);
}

absl::StatusOr<Type> InferMeshgrid(const ir::relax::Call& call) {
  absl::StatusOr<std::optional<std::vector<TensorInfo>>> ins = GetTupleTensorInfos(call, 0, "meshgrid", "tensors");
  if (!ins.ok()) return ins.status();
  std::string indexing = StringAttr(call, "indexing", "ij");
  if (indexing != "ij" && indexing != "xy") return OpError("meshgrid", "indexing must be \"ij\" or \"xy\"");
  if (!ins->has_value()) return Type(AnyType::Make());
  const std::vector<TensorInfo>& xs = **ins;
  if (xs.empty()) return OpError("meshgrid", "expects at least one tensor");
  absl::StatusOr<DataType> dtype = CommonDType("meshgrid", xs);
  if (!dtype.ok()) return dtype.status();
  std::vector<PrimExpr> shape;
  bool known = true;
  for (const TensorInfo& x : xs) {
    if (x.ndim >= 0 && x.ndim > 1) return OpError("meshgrid", "expects 0-D or 1-D tensors");
    if (!x.shape_known) {
      known = false;
      continue;
    }
    shape.push_back(x.ndim == 0 ? Dim(1) : x.shape[0]);
  }
  int n = static_cast<int>(xs.size());
  if (known && indexing == "xy" && n >= 2) std::swap(shape[0], shape[1]);
  Array<Type> fields;
  for (int i = 0; i < n; ++i) fields.push_back(known ? MakeTensorType(shape, *dtype) : MakeTensorType(*dtype, n));
  return Type(TupleType(fields));
}

absl::StatusOr<Type> InferOneHot(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> idx = GetTensorInfo(ArgType(call, 0), "one_hot", "indices");
  if (!idx.ok()) return idx.status();
  absl::Status st = CheckIntegerIndices("one_hot", *idx);
  if (!st.ok()) return st;
  PrimExpr on = PrimArgValue(call, 1), off = PrimArgValue(call, 2);
  if (!on.defined() || !off.defined()) return OpError("one_hot", "on_value and off_value must be prim values");
  if (on.dtype() != off.dtype()) {
    return OpError("one_hot", "on_value and off_value must have the same dtype, got " + on.dtype().ToString() +
                                  " and " + off.dtype().ToString());
  }
  int64_t depth = IntAttr(call, "depth").value_or(0);
  if (depth <= 0) return OpError("one_hot", absl::StrCat("depth must be positive, got ", depth));
  if (idx->ndim < 0) return MakeTensorType(on.dtype(), -1);
  absl::StatusOr<int> axis = NormalizeAxis("one_hot", IntAttr(call, "axis").value_or(-1), idx->ndim + 1);
  if (!axis.ok()) return axis.status();
  if (!idx->shape_known) return MakeTensorType(on.dtype(), idx->ndim + 1);
  std::vector<PrimExpr> shape = idx->shape;
  shape.insert(shape.begin() + *axis, Dim(depth));
  return MakeTensorType(shape, on.dtype());
}

}  // namespace

// R.layout_transform(x, index_map=T.index_map(...), pad_value=None): the output has one dim per
// final index; with a constant input shape each dim is the extent of its index expression over
// the input's index ranges (padding included), else only the rank is known.
absl::StatusOr<Type> InferLayoutTransform(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "layout_transform", "x");
  if (!x.ok()) return x.status();
  const auto* map = call->attrs.Get(String("index_map")).as<IndexMapNode>();
  if (!map) return OpError("layout_transform", "index_map must be a T.index_map(...)");
  if (x->ndim >= 0 && static_cast<size_t>(x->ndim) != map->initial_indices.size()) {
    return OpError("layout_transform", absl::StrCat("the index map takes ", map->initial_indices.size(),
                                                    " indices but the tensor has rank ", x->ndim));
  }
  TensorInfo out;
  out.dtype = x->dtype;
  out.ndim = static_cast<int>(map->final_indices.size());
  std::vector<int64_t> dims;
  for (const PrimExpr& d : x->shape) {
    std::optional<int64_t> n = AsConst(d);
    if (!n) break;
    dims.push_back(*n);
  }
  if (x->shape_known && dims.size() == x->shape.size()) {
    arith::Analyzer analyzer;
    for (size_t k = 0; k < dims.size(); ++k) {
      const Var& v = map->initial_indices[k];
      analyzer.BindRange(v, IntImm(v->dtype, 0), IntImm(v->dtype, dims[k]));
    }
    out.shape_known = true;
    for (const PrimExpr& e : map->final_indices) {
      // x % c spans all of [0, c): the map pads the tensor up to it, as TVM's shape mapping does.
      if (const auto* mod = e.as<FloorModNode>()) {
        if (std::optional<int64_t> c = AsConst(mod->b); c && *c > 0) {
          out.shape.push_back(Dim(*c));
          continue;
        }
      }
      arith::ConstIntBound b = analyzer.GetConstIntBound(e);
      if (b.min_value < 0 || b.max_value == arith::ConstIntBound::kPosInf) {
        out.shape_known = false;
        break;
      }
      out.shape.push_back(Dim(b.max_value + 1));
    }
    if (!out.shape_known) out.shape.clear();
  }
  return MakeTensorType(out);
}

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
  AddOp(ops, "layout_transform", {"x"}, {AnyAttrSpec("index_map"), AnyAttrSpec("pad_value")}, InferLayoutTransform);
  AddOp(ops, "stack", {"tensors"}, {{"axis", AttrSpec::Kind::kOptionalInt, IntImm(DataType::Int(64), 0)}},
        InferStack);
  AddOp(ops, "collapse_sum_like", {"data", "collapse_target"}, {}, InferCollapseSumLike);
  AddOp(ops, "repeat", {"data"}, {RequiredIntAttrSpec("repeats"), OptionalIntAttrSpec("axis")}, InferRepeat);
  AddOp(ops, "tile", {"data"}, {RequiredIntArrayAttrSpec("repeats")}, InferTile);
  AddOp(ops, "reverse_sequence", {"data", "seq_lengths"}, {IntAttrSpec("seq_axis", 1), IntAttrSpec("batch_axis", 0)},
        InferReverseSequence);
  AddOp(ops, "gather_elements", {"data", "indices"}, {IntAttrSpec("axis", 0)}, InferGatherElements);
  AddOp(ops, "gather_nd", {"data", "indices"}, {IntAttrSpec("batch_dims", 0)}, InferGatherND);
  AddOp(ops, "index_tensor", {"data", "indices"}, {}, InferIndexTensor);
  AddOp(ops, "index_put", {"data", "indices", "values"}, {BoolAttrSpec("accumulate", false)}, InferIndexPut);
  AddOp(ops, "meshgrid", {"tensors"}, {{"indexing", AttrSpec::Kind::kOptionalString, String("ij")}}, InferMeshgrid);
  AddOp(ops, "scatter_elements", {"data", "indices", "updates"},
        {IntAttrSpec("axis", 0), StringAttrSpec("reduction", "update")}, InferScatterElements);
  AddOp(ops, "scatter_nd", {"data", "indices", "updates"}, {StringAttrSpec("reduction", "update")}, InferScatterND);
  AddOp(ops, "slice_scatter", {"input_tensor", "src", "start", "end", "step"}, {IntAttrSpec("axis", 0)},
        InferSliceScatter);
  AddOp(ops, "one_hot", {"indices", "on_value", "off_value"}, {RequiredIntAttrSpec("depth"), IntAttrSpec("axis", -1)},
        InferOneHot);
}

}  // namespace kiln::relax
