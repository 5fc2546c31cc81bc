// Data movement: R.reshape/flatten/nn.batch_flatten (row-major ravel and unravel), expand_dims, squeeze,
// permute_dims, broadcast_to, concat and stack (a lazy if_then_else chain over the inputs, so no
// input is read out of bounds), split (one output per piece), flip, repeat, tile, gather_elements,
// scatter_elements and one_hot: index-only, op_pattern kInjective (scatter: kOpaque). Also
// collapse_sum_to/like (a sum over the broadcast dims), and no_grad / stop_lift_params, which are
// the value itself. The output shapes come from the call's inferred type.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/table.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"

namespace kiln::relax::legalize {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

// Row-major flat position of index i in shape.
PrimExpr Ravel(const Indices& i, const std::vector<PrimExpr>& shape) {
  PrimExpr flat = Int64(0);
  for (size_t d = 0; d < shape.size(); ++d) flat = d == 0 ? i[0] : PrimExpr(Add(Mul(flat, shape[d]), i[d]));
  return flat;
}

// The common shape of a one-input, one-output index mapping: out[i] = x[map(i)].
LegalizeFn IndexMap(const std::string& name,
                    std::function<absl::StatusOr<std::function<Indices(const Indices&)>>(
                        const rx::Call&, const Tensor& x, const std::vector<PrimExpr>& out_shape)>
                        make_map,
                    OpPatternKind pattern = OpPatternKind::kInjective) {
  return [=](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    absl::StatusOr<SingleInputKernel> kernel = StartSingleInputKernel(call, name);
    if (!kernel.ok()) return kernel.status();
    FuncBuilder& b = kernel->b;
    const Tensor& x = kernel->x;
    const std::vector<PrimExpr>& shape = kernel->shape;
    auto map = make_map(call, x, shape);
    if (!map.ok()) return map.status();
    Tensor out = b.Compute("T_" + name, shape, x.dtype(), [&](const Indices& i) { return x((*map)(i)); });
    return ctx->Emit(b, {out}, pattern, call);
  };
}

using MapResult = absl::StatusOr<std::function<Indices(const Indices&)>>;

MapResult ReshapeMap(const rx::Call&, const Tensor& x, const std::vector<PrimExpr>& out_shape) {
  std::vector<PrimExpr> xshape = x.shape().ToVector();
  return std::function<Indices(const Indices&)>(
      [=](const Indices& i) { return Unravel(Ravel(i, out_shape), xshape); });
}

MapResult ExpandDimsMap(const rx::Call& call, const Tensor& x, const std::vector<PrimExpr>& out_shape) {
  absl::StatusOr<std::vector<int>> axes =
      NormalizeAxes("expand_dims", IntArrayAttr(call, "axis").value_or(std::vector<int64_t>{}),
                    static_cast<int>(out_shape.size()));
  if (!axes.ok()) return axes.status();
  std::vector<bool> inserted(out_shape.size(), false);
  for (int a : *axes) inserted[a] = true;
  return std::function<Indices(const Indices&)>([=](const Indices& i) {
    Indices idx;
    for (size_t d = 0; d < i.size(); ++d) {
      if (!inserted[d]) idx.push_back(i[d]);
    }
    return idx;
  });
}

MapResult SqueezeMap(const rx::Call& call, const Tensor& x, const std::vector<PrimExpr>&) {
  std::vector<bool> squeezed(x.ndim(), false);
  if (std::optional<std::vector<int64_t>> axis = IntArrayAttr(call, "axis")) {
    absl::StatusOr<std::vector<int>> axes = NormalizeAxes("squeeze", *axis, x.ndim());
    if (!axes.ok()) return axes.status();
    for (int a : *axes) squeezed[a] = true;
  } else {
    for (int d = 0; d < x.ndim(); ++d) {
      std::optional<int64_t> c = AsConst(x.shape()[d]);
      squeezed[d] = c && *c == 1;
    }
  }
  return std::function<Indices(const Indices&)>([=](const Indices& i) {
    Indices idx;
    size_t k = 0;
    for (bool s : squeezed) idx.push_back(s ? Int64(0) : i[k++]);
    return idx;
  });
}

MapResult PermuteMap(const rx::Call& call, const Tensor& x, const std::vector<PrimExpr>&) {
  int n = x.ndim();
  std::vector<int> axes;
  if (std::optional<std::vector<int64_t>> given = IntArrayAttr(call, "axes")) {
    absl::StatusOr<std::vector<int>> norm = NormalizeAxes("permute_dims", *given, n);
    if (!norm.ok()) return norm.status();
    axes = *norm;
  } else {
    for (int d = n - 1; d >= 0; --d) axes.push_back(d);
  }
  return std::function<Indices(const Indices&)>([=](const Indices& i) {
    Indices idx(n);
    for (int d = 0; d < n; ++d) idx[axes[d]] = i[d];
    return idx;
  });
}

MapResult BroadcastToMap(const rx::Call&, const Tensor& x, const std::vector<PrimExpr>& out_shape) {
  return std::function<Indices(const Indices&)>(
      [x, out_shape](const Indices& i) { return BroadcastIndices(x, out_shape, i); });
}

MapResult FlipMap(const rx::Call& call, const Tensor& x, const std::vector<PrimExpr>&) {
  absl::StatusOr<int> axis = NormalizeAxis("flip", IntAttr(call, "axis").value_or(0), x.ndim());
  if (!axis.ok()) return axis.status();
  PrimExpr n = x.shape()[*axis];
  int a = *axis;
  return std::function<Indices(const Indices&)>([=](const Indices& i) {
    Indices idx = i;
    idx[a] = Sub(Sub(n, Int64(1)), i[a]);
    return idx;
  });
}

MapResult RepeatMap(const rx::Call& call, const Tensor& x, const std::vector<PrimExpr>&) {
  PrimExpr repeats = Int64(IntAttr(call, "repeats").value_or(1));
  std::optional<int64_t> axis_attr = IntAttr(call, "axis");
  std::vector<PrimExpr> xshape = x.shape().ToVector();
  if (!axis_attr) {
    return std::function<Indices(const Indices&)>(
        [=](const Indices& i) { return Unravel(FloorDiv(i[0], repeats), xshape); });
  }
  absl::StatusOr<int> axis = NormalizeAxis("repeat", *axis_attr, x.ndim());
  if (!axis.ok()) return axis.status();
  int a = *axis;
  return std::function<Indices(const Indices&)>([=](const Indices& i) {
    Indices idx = i;
    idx[a] = FloorDiv(i[a], repeats);
    return idx;
  });
}

MapResult TileMap(const rx::Call&, const Tensor& x, const std::vector<PrimExpr>& out_shape) {
  std::vector<PrimExpr> xshape = x.shape().ToVector();
  return std::function<Indices(const Indices&)>([=](const Indices& i) {
    Indices idx;
    size_t offset = out_shape.size() - xshape.size();
    for (size_t d = 0; d < xshape.size(); ++d) idx.push_back(FloorMod(i[offset + d], xshape[d]));
    return idx;
  });
}

// The value at output index i of tensors laid one after another along `axis` (concat), or one per
// position of a new axis (stack): a chain of lazy if_then_else over the inputs.
PrimExpr Pick(const std::vector<Tensor>& xs, const std::vector<PrimExpr>& offsets, int axis, bool stack,
              const Indices& i) {
  auto at = [&](size_t j) {
    Indices idx;
    for (size_t d = 0; d < i.size(); ++d) {
      if (stack && static_cast<int>(d) == axis) continue;
      idx.push_back(!stack && static_cast<int>(d) == axis ? PrimExpr(Sub(i[d], offsets[j])) : i[d]);
    }
    return CastTo(xs.back().dtype(), xs[j](idx));
  };
  PrimExpr value = at(xs.size() - 1);
  for (size_t j = xs.size() - 1; j-- > 0;) {
    PrimExpr in_j = stack ? PrimExpr(EQ(i[axis], Int64(static_cast<int64_t>(j)))) : PrimExpr(LT(i[axis], offsets[j + 1]));
    value = Intrin("if_then_else", value.dtype(), {in_j, at(j), value});
  }
  return value;
}

absl::StatusOr<Expr> LegalizeConcat(const rx::Call& call, LegalizeContext* ctx, bool stack) {
  std::string name = stack ? "stack" : "concatenate";
  absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
  if (!out_tt.ok()) return out_tt.status();
  FuncBuilder b(name);
  absl::StatusOr<std::vector<Tensor>> xs = b.InputTuple(call->args[0]);
  if (!xs.ok()) return xs.status();
  if (xs->empty()) return absl::InvalidArgumentError("needs at least one tensor");
  absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(call->ty);
  if (!shape.ok()) return shape.status();
  std::optional<int64_t> axis_attr = IntAttr(call, "axis");
  std::vector<Tensor> inputs = *xs;
  if (!axis_attr && !stack) {
    // axis=None concatenates the flattened tensors.
    for (size_t k = 0; k < inputs.size(); ++k) {
      std::vector<PrimExpr> tshape = inputs[k].shape().ToVector();
      Tensor src = inputs[k];
      inputs[k] = b.Compute(absl::StrCat("T_reshape_", k), {NumElements(tshape)}, src.dtype(),
                            [&](const Indices& i) { return src(Unravel(i[0], tshape)); });
    }
  }
  absl::StatusOr<int> axis = NormalizeAxis(name, axis_attr.value_or(0), static_cast<int>(shape->size()));
  if (!axis.ok()) return axis.status();
  std::vector<PrimExpr> offsets = {Int64(0)};
  for (const Tensor& t : inputs) offsets.push_back(AddDim(offsets.back(), stack ? Int64(1) : t.shape()[*axis]));
  DataType dt = (*out_tt)->dtype;
  Tensor out = b.Compute("T_" + name, *shape, dt,
                         [&](const Indices& i) { return Pick(inputs, offsets, *axis, stack, i); });
  return ctx->Emit(b, {out}, OpPatternKind::kInjective, call);
}

absl::StatusOr<Expr> LegalizeSplit(const rx::Call& call, LegalizeContext* ctx) {
  const auto* tuple = call->ty.as<TupleTypeNode>();
  if (tuple == nullptr) return absl::InvalidArgumentError("its result is not a tuple");
  FuncBuilder b("split");
  absl::StatusOr<Tensor> x = b.Input(call->args[0]);
  if (!x.ok()) return x.status();
  absl::StatusOr<int> axis = NormalizeAxis("split", IntAttr(call, "axis").value_or(0), x->ndim());
  if (!axis.ok()) return axis.status();
  std::vector<Tensor> outs;
  PrimExpr offset = Int64(0);
  for (size_t j = 0; j < tuple->fields.size(); ++j) {
    absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(tuple->fields[j]);
    if (!shape.ok()) return shape.status();
    const auto* tt = tuple->fields[j].as<TensorTypeNode>();
    PrimExpr begin = offset;
    outs.push_back(b.Compute(absl::StrCat("T_split_", j), *shape, tt->dtype, [&](const Indices& i) {
      Indices idx = i;
      idx[*axis] = AddDim(i[*axis], begin);
      return (*x)(idx);
    }));
    offset = AddDim(offset, (*shape)[*axis]);
  }
  return ctx->Emit(b, outs, OpPatternKind::kInjective, call);
}

// R.gather_elements(data, indices, axis): out[i] = data[i with i[axis] = indices[i]].
absl::StatusOr<Expr> LegalizeGatherElements(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("gather_elements");
  absl::StatusOr<Tensor> data = b.Input(call->args[0]);
  if (!data.ok()) return data.status();
  absl::StatusOr<Tensor> indices = b.Input(call->args[1]);
  if (!indices.ok()) return indices.status();
  absl::StatusOr<int> axis = NormalizeAxis("gather_elements", IntAttr(call, "axis").value_or(0), data->ndim());
  if (!axis.ok()) return axis.status();
  PrimExpr n = data->shape()[*axis];
  Tensor out = b.Compute("T_gather_elements", indices->shape().ToVector(), data->dtype(), [&](const Indices& i) {
    Indices idx = i;
    PrimExpr k = CastTo(DataType::Int(64), (*indices)(i));
    idx[*axis] = Select(LT(k, Int64(0)), Add(k, n), k);
    return (*data)(idx);
  });
  return ctx->Emit(b, {out}, OpPatternKind::kInjective, call);
}

// R.scatter_elements(data, indices, updates, axis, reduction): a copy of data, then every update
// applied in order (so later duplicates win for "update").
absl::StatusOr<Expr> LegalizeScatterElements(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("scatter_elements");
  absl::StatusOr<Tensor> data = b.Input(call->args[0]);
  if (!data.ok()) return data.status();
  absl::StatusOr<Tensor> indices = b.Input(call->args[1]);
  if (!indices.ok()) return indices.status();
  absl::StatusOr<Tensor> updates = b.Input(call->args[2]);
  if (!updates.ok()) return updates.status();
  absl::StatusOr<int> axis = NormalizeAxis("scatter_elements", IntAttr(call, "axis").value_or(0), data->ndim());
  if (!axis.ok()) return axis.status();
  std::string reduction = StringAttr(call, "reduction", "update");
  PrimExpr n = data->shape()[*axis];
  DataType dt = data->dtype();
  std::vector<Tensor> outs = b.Opaque(
      "T_scatter_elements", {*data, *indices, *updates}, {{"T_scatter_elements", dt}}, data->shape().ToVector(),
      [&](const std::vector<Tensor>& o) {
        const Tensor& out = o[0];
        Stmt copy = Loops(data->shape().ToVector(), "i",
                          [&](const Indices& i) { return Stmt(BufferStore(out.buffer, (*data)(i), Array<PrimExpr>(i))); });
        Stmt apply = Loops(indices->shape().ToVector(), "j", [&](const Indices& j) {
          Indices idx = j;
          PrimExpr k = CastTo(DataType::Int(64), (*indices)(j));
          idx[*axis] = Select(LT(k, Int64(0)), Add(k, n), k);
          PrimExpr u = (*updates)(j), cur = out(idx);
          PrimExpr v = u;
          if (reduction == "add") v = Add(cur, u);
          if (reduction == "mul") v = Mul(cur, u);
          if (reduction == "min") v = Min(cur, u);
          if (reduction == "max") v = Max(cur, u);
          if (reduction == "mean") v = Div(Add(cur, u), Const(dt, 2));
          return Stmt(BufferStore(out.buffer, v, Array<PrimExpr>(idx)));
        });
        return SeqStmt::Flatten({copy, apply});
      });
  return ctx->Emit(b, {outs[0]}, OpPatternKind::kOpaque, call);
}

// R.one_hot(indices, on_value, off_value, depth, axis): on where the new axis' index equals the
// index, off elsewhere.
absl::StatusOr<Expr> LegalizeOneHot(const rx::Call& call, LegalizeContext* ctx) {
  absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
  if (!out_tt.ok()) return out_tt.status();
  DataType dt = (*out_tt)->dtype;
  FuncBuilder b("one_hot");
  absl::StatusOr<Tensor> indices = b.Input(call->args[0]);
  if (!indices.ok()) return indices.status();
  absl::StatusOr<PrimExpr> on = b.Scalar(call->args[1]);
  if (!on.ok()) return on.status();
  absl::StatusOr<PrimExpr> off = b.Scalar(call->args[2]);
  if (!off.ok()) return off.status();
  absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(call->ty);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<int> axis = NormalizeAxis("one_hot", IntAttr(call, "axis").value_or(-1), static_cast<int>(shape->size()));
  if (!axis.ok()) return axis.status();
  Tensor out = b.Compute("T_one_hot", *shape, dt, [&](const Indices& i) {
    Indices idx;
    for (size_t d = 0; d < i.size(); ++d) {
      if (static_cast<int>(d) != *axis) idx.push_back(i[d]);
    }
    PrimExpr hit = EQ(CastTo(DataType::Int(64), (*indices)(idx)), i[*axis]);
    return PrimExpr(Select(hit, CastTo(dt, *on), CastTo(dt, *off)));
  });
  return ctx->Emit(b, {out}, OpPatternKind::kInjective, call);
}

// R.collapse_sum_to(data, shape) / R.collapse_sum_like(data, target): the sum of data over the
// dims that broadcasting data's result from the target shape would have added or expanded (the
// gradient of broadcast_to).
absl::StatusOr<Expr> LegalizeCollapseSum(const rx::Call& call, LegalizeContext* ctx) {
  absl::StatusOr<SingleInputKernel> kernel = StartSingleInputKernel(call, "collapse_sum");
  if (!kernel.ok()) return kernel.status();
  FuncBuilder& b = kernel->b;
  const Tensor& x = kernel->x;
  const std::vector<PrimExpr>& shape = kernel->shape;
  size_t lead = x.ndim() - shape.size();
  std::vector<bool> reduced(x.ndim(), false);
  std::vector<PrimExpr> extents;
  for (int d = 0; d < x.ndim(); ++d) {
    std::optional<int64_t> od = d < static_cast<int>(lead) ? std::nullopt : AsConst(shape[d - lead]);
    std::optional<int64_t> xd = AsConst(x.shape()[d]);
    reduced[d] = d < static_cast<int>(lead) || (od && *od == 1 && !(xd && *xd == 1));
    if (reduced[d]) extents.push_back(x.shape()[d]);
  }
  DataType dt = x.dtype();
  Tensor out = b.Reduce("T_collapse_sum", shape, dt, extents, Const(dt, 0),
                        [](const PrimExpr& a, const PrimExpr& v) { return PrimExpr(Add(a, v)); },
                        [&](const Indices& i, const Indices& k) {
                          Indices idx;
                          size_t ki = 0;
                          for (int d = 0; d < x.ndim(); ++d) idx.push_back(reduced[d] ? k[ki++] : i[d - lead]);
                          return x(idx);
                        });
  return ctx->Emit(b, {out}, OpPatternKind::kCommReduce, call);
}

// R.meshgrid(tensors, indexing): output j repeats tensor j along its own dim of the grid ("xy"
// swaps the first two grid dims, as numpy does).
absl::StatusOr<Expr> LegalizeMeshgrid(const rx::Call& call, LegalizeContext* ctx) {
  const auto* tuple = call->ty.as<TupleTypeNode>();
  if (tuple == nullptr) return absl::InvalidArgumentError("its result is not a tuple");
  FuncBuilder b("meshgrid");
  absl::StatusOr<std::vector<Tensor>> xs = b.InputTuple(call->args[0]);
  if (!xs.ok()) return xs.status();
  bool xy = StringAttr(call, "indexing", "ij") == "xy" && xs->size() >= 2;
  std::vector<Tensor> outs;
  for (size_t j = 0; j < xs->size() && j < tuple->fields.size(); ++j) {
    absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(tuple->fields[j]);
    if (!shape.ok()) return shape.status();
    size_t dim = xy && j < 2 ? 1 - j : j;
    const Tensor& x = (*xs)[j];
    outs.push_back(b.Compute(absl::StrCat("T_meshgrid_", j), *shape, x.dtype(), [&](const Indices& i) {
      return x.ndim() == 0 ? x({}) : x({i[dim]});
    }));
  }
  return ctx->Emit(b, outs, OpPatternKind::kInjective, call);
}

// Markers with no run-time effect: the value itself.
absl::StatusOr<Expr> Identity(const rx::Call& call, LegalizeContext*) { return call->args[0]; }

}  // namespace

void RegisterManipulateOps(LegalizeTable* t) {
  auto& table = *t;
  table["relax.reshape"] = IndexMap("reshape", ReshapeMap);
  table["relax.flatten"] = IndexMap("flatten", ReshapeMap);
  table["relax.nn.batch_flatten"] = IndexMap("batch_flatten", ReshapeMap);
  table["relax.expand_dims"] = IndexMap("expand_dims", ExpandDimsMap);
  table["relax.squeeze"] = IndexMap("squeeze", SqueezeMap);
  table["relax.permute_dims"] = IndexMap("transpose", PermuteMap);
  table["relax.broadcast_to"] = IndexMap("broadcast_to", BroadcastToMap, OpPatternKind::kBroadcast);
  table["relax.flip"] = IndexMap("flip", FlipMap);
  table["relax.repeat"] = IndexMap("repeat", RepeatMap);
  table["relax.tile"] = IndexMap("tile", TileMap);
  table["relax.concat"] = [](const rx::Call& call, LegalizeContext* ctx) { return LegalizeConcat(call, ctx, false); };
  table["relax.stack"] = [](const rx::Call& call, LegalizeContext* ctx) { return LegalizeConcat(call, ctx, true); };
  table["relax.split"] = LegalizeSplit;
  table["relax.gather_elements"] = LegalizeGatherElements;
  table["relax.scatter_elements"] = LegalizeScatterElements;
  table["relax.one_hot"] = LegalizeOneHot;
  table["relax.meshgrid"] = LegalizeMeshgrid;
  table["relax.collapse_sum_to"] = LegalizeCollapseSum;
  table["relax.collapse_sum_like"] = LegalizeCollapseSum;
  table["relax.grad.no_grad"] = Identity;
  table["relax.builtin.stop_lift_params"] = Identity;
}

}  // namespace kiln::relax::legalize
