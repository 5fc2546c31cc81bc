// Reductions and their relatives: R.sum/prod/max/min/mean/variance/std over `axis` (all axes when
// None) with keepdims, R.argmax/argmin (first occurrence; the flat index when axis is None),
// R.cumsum/cumprod (a sequential scan, flattened when axis is None; exclusive), and the sorts
// R.sort/argsort/topk (each element's stable rank by counting, then a scatter to that rank).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/table.h"
#include "compiler/relax/op/infer_util.h"

namespace kiln::relax::legalize {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

// Which axes of an n-d input a reduction folds, and the output it produces.
struct ReducePlan {
  std::vector<bool> reduced;
  std::vector<PrimExpr> out_shape;        // with keepdims' 1s
  std::vector<PrimExpr> reduce_extents;   // in axis order
  bool keepdims = false;

  // The input index for output indices i and reduce indices k.
  Indices InputIndex(const Indices& i, const Indices& k) const {
    Indices idx;
    size_t oi = 0, ki = 0;
    for (bool r : reduced) {
      if (r) {
        idx.push_back(k[ki++]);
        if (keepdims) ++oi;
      } else {
        idx.push_back(i[oi++]);
      }
    }
    return idx;
  }
};

absl::StatusOr<ReducePlan> PlanReduce(const rx::Call& call, const Tensor& x, std::optional<std::vector<int64_t>> axes) {
  ReducePlan p;
  p.keepdims = BoolAttr(call, "keepdims", false);
  int ndim = x.ndim();
  p.reduced.assign(ndim, !axes.has_value());
  if (axes) {
    absl::StatusOr<std::vector<int>> norm = NormalizeAxes("reduce", *axes, ndim);
    if (!norm.ok()) return norm.status();
    for (int a : *norm) p.reduced[a] = true;
  }
  for (int d = 0; d < ndim; ++d) {
    if (p.reduced[d]) {
      p.reduce_extents.push_back(x.shape()[d]);
      if (p.keepdims) p.out_shape.push_back(Int64(1));
    } else {
      p.out_shape.push_back(x.shape()[d]);
    }
  }
  return p;
}

// What a reduction starts from: the output dtype, a builder for the PrimFunc `name`, the call's
// first argument as its input and the plan of reducing it over `axes` (all when absent).
struct ReductionStart {
  DataType out_dt;
  FuncBuilder b;
  Tensor x;
  ReducePlan plan;
};

absl::StatusOr<ReductionStart> StartReduction(const rx::Call& call, const std::string& name,
                                              std::optional<std::vector<int64_t>> axes) {
  absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
  if (!out_tt.ok()) return out_tt.status();
  FuncBuilder b(name);
  absl::StatusOr<Tensor> x = b.Input(call->args[0]);
  if (!x.ok()) return x.status();
  absl::StatusOr<ReducePlan> plan = PlanReduce(call, *x, std::move(axes));
  if (!plan.ok()) return plan.status();
  return ReductionStart{(*out_tt)->dtype, std::move(b), *std::move(x), *std::move(plan)};
}

enum class Kind { kSum, kProd, kMax, kMin, kMean, kVariance, kStd };

LegalizeFn Reduction(const std::string& name, Kind kind) {
  return [=](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    absl::StatusOr<ReductionStart> start = StartReduction(call, name, IntArrayAttr(call, "axis"));
    if (!start.ok()) return start.status();
    DataType dt = start->out_dt;
    FuncBuilder& b = start->b;
    const Tensor& x = start->x;
    const ReducePlan& p = start->plan;
    auto load = [&](const Indices& i, const Indices& k) { return CastTo(dt, x(p.InputIndex(i, k))); };
    auto add = [](const PrimExpr& a, const PrimExpr& v) { return PrimExpr(Add(a, v)); };
    Tensor out;
    switch (kind) {
      case Kind::kSum:
        out = b.Reduce("T_" + name, p.out_shape, dt, p.reduce_extents, Const(dt, 0), add, load);
        break;
      case Kind::kProd:
        out = b.Reduce("T_" + name, p.out_shape, dt, p.reduce_extents, Const(dt, 1),
                       [](const PrimExpr& a, const PrimExpr& v) { return PrimExpr(Mul(a, v)); }, load);
        break;
      case Kind::kMax:
        out = b.Reduce("T_" + name, p.out_shape, dt, p.reduce_extents, MinValue(dt),
                       [](const PrimExpr& a, const PrimExpr& v) { return PrimExpr(Max(a, v)); }, load);
        break;
      case Kind::kMin:
        out = b.Reduce("T_" + name, p.out_shape, dt, p.reduce_extents, MaxValue(dt),
                       [](const PrimExpr& a, const PrimExpr& v) { return PrimExpr(Min(a, v)); }, load);
        break;
      case Kind::kMean:
      case Kind::kVariance:
      case Kind::kStd: {
        PrimExpr count = CastTo(dt, NumElements(p.reduce_extents));
        Tensor sum = b.Reduce("T_sum", p.out_shape, dt, p.reduce_extents, Const(dt, 0), add, load);
        out = b.Compute("T_divide", p.out_shape, dt, [&](const Indices& i) { return PrimExpr(Div(sum(i), count)); });
        if (kind == Kind::kMean) break;
        Tensor mean = out;
        // Output indices of the mean for an input index: with keepdims the reduced dims are 0.
        auto mean_at = [&](const Indices& i, const Indices& k) {
          Indices full = p.InputIndex(i, k);
          Indices m;
          for (size_t d = 0; d < full.size(); ++d) {
            if (!p.reduced[d]) {
              m.push_back(full[d]);
            } else if (p.keepdims) {
              m.push_back(Int64(0));
            }
          }
          return mean(m);
        };
        Tensor sq = b.Reduce("T_sum_sq", p.out_shape, dt, p.reduce_extents, Const(dt, 0), add,
                             [&](const Indices& i, const Indices& k) {
                               PrimExpr d = Sub(load(i, k), mean_at(i, k));
                               return PrimExpr(Mul(d, d));
                             });
        out = b.Compute("T_variance", p.out_shape, dt, [&](const Indices& i) { return PrimExpr(Div(sq(i), count)); });
        if (kind == Kind::kStd) {
          Tensor var = out;
          out = b.Compute("T_std", p.out_shape, dt, [&](const Indices& i) { return Intrin("sqrt", dt, {var(i)}); });
        }
        break;
      }
    }
    return ctx->Emit(b, {out}, OpPatternKind::kCommReduce, call);
  };
}

// R.argmax / R.argmin: the first index of the extreme value (flat over all axes when axis is None).
LegalizeFn ArgReduction(const std::string& name, bool is_max) {
  return [=](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    std::optional<int64_t> axis = IntAttr(call, "axis");
    std::optional<std::vector<int64_t>> axes;
    if (axis) axes = std::vector<int64_t>{*axis};
    absl::StatusOr<ReductionStart> start = StartReduction(call, name, axes);
    if (!start.ok()) return start.status();
    DataType idx_dt = start->out_dt;
    FuncBuilder& b = start->b;
    const Tensor& x = start->x;
    const ReducePlan& p = start->plan;
    DataType dt = x.dtype();
    std::vector<Tensor> outs = b.ReduceN(
        "T_" + name, p.out_shape, {idx_dt, dt}, p.reduce_extents, {Const(idx_dt, -1), is_max ? MinValue(dt) : MaxValue(dt)},
        [&](const Indices& i, const Indices& k, const std::vector<PrimExpr>& cur) {
          PrimExpr v = x(p.InputIndex(i, k));
          // The flat position of k among the reduced dims (k itself for one axis).
          PrimExpr pos = k.empty() ? Int64(0) : k[0];
          for (size_t d = 1; d < k.size(); ++d) pos = Add(Mul(pos, p.reduce_extents[d]), k[d]);
          PrimExpr better = is_max ? PrimExpr(GT(v, cur[1])) : PrimExpr(LT(v, cur[1]));
          PrimExpr take = Or(EQ(cur[0], Const(idx_dt, -1)), better);
          return std::vector<PrimExpr>{Select(take, CastTo(idx_dt, pos), cur[0]), Select(take, v, cur[1])};
        });
    return ctx->Emit(b, {outs[0]}, OpPatternKind::kCommReduce, call);
  };
}

// R.cumsum / R.cumprod: a scan along the axis, one row at a time.
LegalizeFn Scan(const std::string& name, bool is_sum) {
  return [=](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    absl::StatusOr<SingleInputKernel> kernel = StartSingleInputKernel(call, name);
    if (!kernel.ok()) return kernel.status();
    DataType dt = kernel->out_tt->dtype;
    FuncBuilder& b = kernel->b;
    const Tensor& x = kernel->x;
    const std::vector<PrimExpr>& shape = kernel->shape;
    std::optional<int64_t> axis_attr = IntAttr(call, "axis");
    bool exclusive = BoolAttr(call, "exclusive", false);
    int axis = 0;
    if (axis_attr) {
      absl::StatusOr<int> a = NormalizeAxis(name, *axis_attr, x.ndim());
      if (!a.ok()) return a.status();
      axis = *a;
    }
    std::vector<PrimExpr> xshape = x.shape().ToVector();
    // x's element at output index idx (the flat position when axis is None).
    auto load = [&](const Indices& idx) {
      return CastTo(dt, axis_attr ? x(idx) : x(Unravel(idx[0], xshape)));
    };
    std::vector<PrimExpr> outer;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<int>(d) != axis) outer.push_back(shape[d]);
    }
    PrimExpr n = shape[axis];
    auto combine = [&](const PrimExpr& a, const PrimExpr& v) { return is_sum ? PrimExpr(Add(a, v)) : PrimExpr(Mul(a, v)); };
    std::vector<Tensor> outs = b.Opaque("T_" + name, {x}, {{"T_" + name, dt}}, shape, [&](const std::vector<Tensor>& o) {
      const Tensor& out = o[0];
      return Loops(outer, "i", [&](const Indices& oi) {
        return Loops({n}, "j", [&](const Indices& j) {
          auto at = [&](const PrimExpr& pos) {
            Indices idx;
            size_t k = 0;
            for (size_t d = 0; d < shape.size(); ++d) idx.push_back(static_cast<int>(d) == axis ? pos : oi[k++]);
            return idx;
          };
          PrimExpr prev = Sub(j[0], Int64(1));
          PrimExpr first = exclusive ? Const(dt, is_sum ? 0 : 1) : load(at(j[0]));
          PrimExpr step = exclusive ? load(at(prev)) : load(at(j[0]));
          Stmt s0 = BufferStore(out.buffer, first, Array<PrimExpr>(at(j[0])));
          Stmt s1 = BufferStore(out.buffer, combine(out(at(prev)), step), Array<PrimExpr>(at(j[0])));
          return Stmt(IfThenElse(EQ(j[0], Int64(0)), s0, s1));
        });
      });
    });
    return ctx->Emit(b, {outs[0]}, OpPatternKind::kOpaque, call);
  };
}

// Sorting along an axis: rank[j] = #{k : x[k] before x[j]} with ties broken by position (stable),
// then out[rank[j]] = x[j] (or j). `keep` limits the outputs to the first k ranks (topk).
struct SortResult {
  Tensor values, indices;
};

absl::StatusOr<SortResult> BuildSort(FuncBuilder* b, const Tensor& x, int axis, bool descending, PrimExpr keep,
                                     DataType idx_dt, bool want_values, bool want_indices) {
  std::vector<PrimExpr> shape = x.shape().ToVector();
  PrimExpr n = shape[axis];
  auto with_axis = [&](const Indices& i, const PrimExpr& pos) {
    Indices idx = i;
    idx[axis] = pos;
    return idx;
  };
  Tensor rank = b->Reduce("T_rank", shape, DataType::Int(64), {n}, Int64(0),
                          [](const PrimExpr& a, const PrimExpr& v) { return PrimExpr(Add(a, v)); },
                          [&](const Indices& i, const Indices& k) {
                            PrimExpr mine = x(i), other = x(with_axis(i, k[0]));
                            PrimExpr before = descending ? PrimExpr(GT(other, mine)) : PrimExpr(LT(other, mine));
                            PrimExpr tie = And(EQ(other, mine), LT(k[0], i[axis]));
                            return CastTo(DataType::Int(64), Or(before, tie));
                          });
  std::vector<PrimExpr> out_shape = shape;
  out_shape[axis] = keep;
  std::vector<std::pair<std::string, DataType>> writes;
  if (want_values) writes.emplace_back("T_sort_values", x.dtype());
  if (want_indices) writes.emplace_back("T_sort_indices", idx_dt);
  std::vector<Tensor> outs = b->Opaque("T_scatter_rank", {x, rank}, writes, out_shape, [&](const std::vector<Tensor>& o) {
    return Loops(shape, "i", [&](const Indices& i) {
      PrimExpr r = rank(i);
      std::vector<Stmt> stores;
      size_t w = 0;
      if (want_values) stores.push_back(BufferStore(o[w++].buffer, x(i), Array<PrimExpr>(with_axis(i, r))));
      if (want_indices) {
        stores.push_back(BufferStore(o[w++].buffer, CastTo(idx_dt, i[axis]), Array<PrimExpr>(with_axis(i, r))));
      }
      return Stmt(IfThenElse(LT(r, keep), SeqStmt::Flatten(stores)));
    });
  });
  SortResult res;
  size_t w = 0;
  if (want_values) res.values = outs[w++];
  if (want_indices) res.indices = outs[w++];
  return res;
}

absl::StatusOr<Expr> LegalizeSort(const rx::Call& call, LegalizeContext* ctx, bool arg) {
  absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
  if (!out_tt.ok()) return out_tt.status();
  FuncBuilder b(arg ? "argsort" : "sort");
  absl::StatusOr<Tensor> x = b.Input(call->args[0]);
  if (!x.ok()) return x.status();
  absl::StatusOr<int> axis = NormalizeAxis("sort", IntAttr(call, "axis").value_or(-1), x->ndim());
  if (!axis.ok()) return axis.status();
  absl::StatusOr<SortResult> r = BuildSort(&b, *x, *axis, BoolAttr(call, "descending", false), x->shape()[*axis],
                                           (*out_tt)->dtype, !arg, arg);
  if (!r.ok()) return r.status();
  return ctx->Emit(b, {arg ? r->indices : r->values}, OpPatternKind::kOpaque, call);
}

absl::StatusOr<Expr> LegalizeTopK(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("topk");
  absl::StatusOr<Tensor> x = b.Input(call->args[0]);
  if (!x.ok()) return x.status();
  absl::StatusOr<int> axis = NormalizeAxis("topk", IntAttr(call, "axis").value_or(-1), x->ndim());
  if (!axis.ok()) return axis.status();
  std::string ret = StringAttr(call, "ret_type", "both");
  int64_t k = IntAttr(call, "k").value_or(1);
  PrimExpr keep = k < 1 ? x->shape()[*axis] : Int64(k);
  bool values = ret != "indices", indices = ret != "values";
  absl::StatusOr<SortResult> r = BuildSort(&b, *x, *axis, BoolAttr(call, "largest", true), keep,
                                           DTypeAttr(call, "dtype"), values, indices);
  if (!r.ok()) return r.status();
  std::vector<Tensor> outs;
  if (values) outs.push_back(r->values);
  if (indices) outs.push_back(r->indices);
  return ctx->Emit(b, outs, OpPatternKind::kOpaque, call);
}

}  // namespace

void RegisterReduceOps(LegalizeTable* t) {
  auto& table = *t;
  table["relax.sum"] = Reduction("sum", Kind::kSum);
  table["relax.prod"] = Reduction("prod", Kind::kProd);
  table["relax.max"] = Reduction("max", Kind::kMax);
  table["relax.min"] = Reduction("min", Kind::kMin);
  table["relax.mean"] = Reduction("mean", Kind::kMean);
  table["relax.variance"] = Reduction("variance", Kind::kVariance);
  table["relax.std"] = Reduction("std", Kind::kStd);
  table["relax.argmax"] = ArgReduction("argmax", true);
  table["relax.argmin"] = ArgReduction("argmin", false);
  table["relax.cumsum"] = Scan("cumsum", true);
  table["relax.cumprod"] = Scan("cumprod", false);
  table["relax.sort"] = [](const rx::Call& call, LegalizeContext* ctx) { return LegalizeSort(call, ctx, false); };
  table["relax.argsort"] = [](const rx::Call& call, LegalizeContext* ctx) { return LegalizeSort(call, ctx, true); };
  table["relax.topk"] = LegalizeTopK;
}

}  // namespace kiln::relax::legalize
