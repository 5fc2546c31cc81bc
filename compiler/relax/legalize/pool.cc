// Pooling: relax.nn.max_pool{1,2,3}d, avg_pool{1,2,3}d and adaptive_avg_pool{1,2,3}d, in any layout
// that names N, C and the spatial axes (NCHW, NHWC, NCW, NCDHW, ...). Built with FuncBuilder's
// stages (s_tir, op_pattern kOutEWiseFusable for the window reductions like TVM's pool2d), so
// ScheduleDefaultCPU parallelizes them and FuseOps may fuse an elementwise consumer. The output
// shape is the call's type (ceil_mode is already in it); the window of output index o along a
// spatial axis starts at o * stride - pad_before and has taps o * stride + t * dilation - pad_before.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/table.h"
#include "compiler/relax/op/infer_util.h"

namespace kiln::relax::legalize {
namespace {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

// Where N, C and the spatial axes (in layout order) sit in a pooling layout.
struct PoolLayout {
  int n = -1, c = -1;
  std::vector<int> spatial;
};

absl::StatusOr<PoolLayout> ParseLayout(const std::string& layout, int ndim) {
  PoolLayout p;
  if (static_cast<int>(layout.size()) != ndim) {
    return absl::InvalidArgumentError(absl::StrCat("layout \"", layout, "\" does not match rank ", ndim));
  }
  for (int i = 0; i < ndim; ++i) {
    char ch = layout[i];
    if (ch == 'N' && p.n < 0) {
      p.n = i;
    } else if (ch == 'C' && p.c < 0) {
      p.c = i;
    } else if (ch == 'D' || ch == 'H' || ch == 'W') {
      p.spatial.push_back(i);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unsupported pooling layout \"", layout, "\""));
    }
  }
  if (p.n < 0 || p.c < 0) return absl::InvalidArgumentError(absl::StrCat("layout \"", layout, "\" lacks N or C"));
  return p;
}

// The call's pooling layout: its "layout" attr (NCHW when absent) for rank `ndim`. An out_layout
// other than the input's is not supported.
absl::StatusOr<PoolLayout> CallLayout(const rx::Call& call, int ndim) {
  std::string layout = StringAttr(call, "layout", "NCHW");
  if (StringAttr(call, "out_layout", layout) != layout) {
    return absl::InvalidArgumentError("out_layout different from layout is not supported");
  }
  return ParseLayout(layout, ndim);
}

// One attribute value per spatial axis (a single value applies to all).
std::vector<int64_t> PerAxis(const rx::Call& call, const std::string& name, size_t n, int64_t dflt) {
  std::vector<int64_t> v = IntArrayAttr(call, name).value_or(std::vector<int64_t>{});
  if (v.empty()) v.assign(n, dflt);
  if (v.size() == 1) v.assign(n, v[0]);
  return v;
}

PrimExpr Mul64(const PrimExpr& a, int64_t k) { return k == 1 ? a : PrimExpr(Mul(a, Int64(k))); }

// max_pool / avg_pool.
LegalizeFn WindowPool(bool is_max) {
  return [is_max](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    FuncBuilder b(is_max ? "max_pool" : "avg_pool");
    absl::StatusOr<Tensor> x = b.Input(call->args[0]);
    if (!x.ok()) return x.status();
    absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(call->ty);
    if (!shape.ok()) return shape.status();
    absl::StatusOr<PoolLayout> pl = CallLayout(call, x->ndim());
    if (!pl.ok()) return pl.status();
    size_t s = pl->spatial.size();
    std::vector<int64_t> pool = PerAxis(call, "pool_size", s, 1), strides = PerAxis(call, "strides", s, 1);
    std::vector<int64_t> dilation = PerAxis(call, "dilation", s, 1);
    std::vector<int64_t> padding = IntArrayAttr(call, "padding").value_or(std::vector<int64_t>{});
    if (padding.size() == s) padding.insert(padding.end(), padding.begin(), padding.end());
    padding.resize(2 * s, padding.empty() ? 0 : padding[0]);
    if (pool.size() != s || strides.size() != s || dilation.size() != s) {
      return absl::InvalidArgumentError("pool_size, strides and dilation need one value per spatial axis");
    }
    bool count_pad = BoolAttr(call, "count_include_pad", false);
    DataType dt = x->dtype();
    std::vector<PrimExpr> window;
    for (int64_t k : pool) window.push_back(Int64(k));

    // The input index of tap k of output index i, and whether it is inside the data (or, for the
    // divisor of count_include_pad, inside the padded data).
    auto taps = [&](const Indices& i, const Indices& k, bool padded, PrimExpr* inside) {
      Indices idx = i;
      *inside = PrimExpr();
      for (size_t d = 0; d < s; ++d) {
        int axis = pl->spatial[d];
        PrimExpr p = Sub(Add(Mul64(i[axis], strides[d]), Mul64(k[d], dilation[d])), Int64(padding[d]));
        PrimExpr n = x->shape()[axis];
        PrimExpr ok = padded ? PrimExpr(LT(p, Add(n, Int64(padding[s + d])))) : PrimExpr(And(GE(p, Int64(0)), LT(p, n)));
        *inside = inside->defined() ? PrimExpr(And(*inside, ok)) : ok;
        idx[axis] = p;
      }
      return idx;
    };
    if (is_max) {
      Tensor out = b.Reduce("pool_max", *shape, dt, window, MinValue(dt),
                            [](const PrimExpr& acc, const PrimExpr& v) { return Max(acc, v); },
                            [&](const Indices& i, const Indices& k) {
                              PrimExpr inside;
                              Indices idx = taps(i, k, false, &inside);
                              return Intrin("if_then_else", dt, {inside, (*x)(idx), MinValue(dt)});
                            });
      return ctx->Emit(b, {out}, OpPatternKind::kOutEWiseFusable, call);
    }
    std::vector<Tensor> parts = b.ReduceN(
        "pool_sum", *shape, {dt, DataType::Int(64)}, window, {Const(dt, 0), Int64(0)},
        [&](const Indices& i, const Indices& k, const std::vector<PrimExpr>& cur) -> std::vector<PrimExpr> {
          PrimExpr inside, counted;
          Indices idx = taps(i, k, false, &inside);
          taps(i, k, true, &counted);
          PrimExpr v = Intrin("if_then_else", dt, {inside, (*x)(idx), Const(dt, 0)});
          PrimExpr c = Select(count_pad ? counted : inside, Int64(1), Int64(0));
          return {Add(cur[0], v), Add(cur[1], c)};
        });
    Tensor out = b.Compute("pool_avg", *shape, dt, [&](const Indices& i) {
      return Div(parts[0](i), CastTo(dt, Max(parts[1](i), Int64(1))));
    });
    return ctx->Emit(b, {out}, OpPatternKind::kOutEWiseFusable, call);
  };
}

// adaptive_avg_pool: output index o of an axis averages input [floor(o*in/out), ceil((o+1)*in/out)).
absl::StatusOr<Expr> AdaptivePool(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("adaptive_pool");
  absl::StatusOr<Tensor> x = b.Input(call->args[0]);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(call->ty);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<PoolLayout> pl = CallLayout(call, x->ndim());
  if (!pl.ok()) return pl.status();
  DataType dt = x->dtype();
  // The widest window of each axis bounds its reduction; taps past the window's end are skipped.
  std::vector<PrimExpr> window;
  std::vector<int64_t> ins, outs;
  for (int axis : pl->spatial) {
    const auto* in = x->shape()[axis].as<IntImmNode>();
    const auto* out = (*shape)[axis].as<IntImmNode>();
    if (in == nullptr || out == nullptr || out->value < 1) {
      return absl::InvalidArgumentError("adaptive pooling needs constant spatial dims");
    }
    int64_t widest = 0;
    for (int64_t o = 0; o < out->value; ++o) {
      int64_t start = o * in->value / out->value, end = ((o + 1) * in->value + out->value - 1) / out->value;
      widest = std::max(widest, end - start);
    }
    window.push_back(Int64(widest));
    ins.push_back(in->value);
    outs.push_back(out->value);
  }
  auto bounds = [&](const Indices& i, size_t d) {
    PrimExpr o = i[pl->spatial[d]];
    PrimExpr start = FloorDiv(Mul(o, Int64(ins[d])), Int64(outs[d]));
    PrimExpr end = FloorDiv(Add(Mul(Add(o, Int64(1)), Int64(ins[d])), Int64(outs[d] - 1)), Int64(outs[d]));
    return std::make_pair(start, end);
  };
  Tensor sum = b.Reduce("adaptive_pool_sum", *shape, dt, window, Const(dt, 0),
                        [](const PrimExpr& acc, const PrimExpr& v) { return Add(acc, v); },
                        [&](const Indices& i, const Indices& k) {
                          Indices idx = i;
                          PrimExpr inside;
                          for (size_t d = 0; d < pl->spatial.size(); ++d) {
                            auto [start, end] = bounds(i, d);
                            PrimExpr p = Add(start, k[d]);
                            PrimExpr ok = LT(p, end);
                            inside = inside.defined() ? PrimExpr(And(inside, ok)) : ok;
                            idx[pl->spatial[d]] = Min(p, Int64(ins[d] - 1));  // a clamped (unused) read
                          }
                          return Intrin("if_then_else", dt, {inside, (*x)(idx), Const(dt, 0)});
                        });
  Tensor out = b.Compute("adaptive_pool_avg", *shape, dt, [&](const Indices& i) {
    PrimExpr count = Int64(1);
    for (size_t d = 0; d < pl->spatial.size(); ++d) {
      auto [start, end] = bounds(i, d);
      count = Mul(count, Sub(end, start));
    }
    return Div(sum(i), CastTo(dt, count));
  });
  return ctx->Emit(b, {out}, OpPatternKind::kOutEWiseFusable, call);
}

}  // namespace

void RegisterPoolOps(LegalizeTable* table) {
  for (int s = 1; s <= 3; ++s) {
    (*table)[absl::StrCat("relax.nn.max_pool", s, "d")] = WindowPool(true);
    (*table)[absl::StrCat("relax.nn.avg_pool", s, "d")] = WindowPool(false);
    (*table)[absl::StrCat("relax.nn.adaptive_avg_pool", s, "d")] = AdaptivePool;
  }
}

}  // namespace kiln::relax::legalize
