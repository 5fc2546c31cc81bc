// relax.nn.attention and nn.attention_bias: softmax(q @ k^T * scale [+ bias] [masked]) @ v on
// (batch, seq, heads, dim) tensors, as TVM's legalization computes it, in FuncBuilder stages (so
// ScheduleDefaultCPU parallelizes each): scores (a reduction over the head dim), scaled / biased /
// masked scores, the row max, exponentials, the row sum, the weighted sum of values and the
// normalization. Query heads may be a multiple of the key/value heads (grouped-query attention:
// query head h reads key/value head h / (heads_q / heads_kv)). causal_mask "TopLeft" keeps key
// j <= query i, "BottomRight" keeps j <= i + |seq_kv - seq_q|; masked entries get weight 0.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/table.h"
#include "compiler/relax/op/infer_util.h"

namespace kiln::relax::legalize {
namespace {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

absl::StatusOr<Expr> LegalizeAttention(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("attention");
  std::vector<Tensor> in;
  for (size_t i = 0; i < call->args.size(); ++i) {
    absl::StatusOr<Tensor> t = b.Input(call->args[i]);
    if (!t.ok()) return t.status();
    if (t->ndim() != 4) return absl::InvalidArgumentError("attention operands must be 4-D");
    in.push_back(*t);
  }
  if (in.size() < 3) return absl::InvalidArgumentError("attention needs query, key and value");
  if (IntAttr(call, "window_size").has_value()) {
    return absl::InvalidArgumentError("attention with window_size is not supported");
  }
  std::string mask = StringAttr(call, "causal_mask", "");
  if (!mask.empty() && mask != "TopLeft" && mask != "BottomRight") {
    return absl::InvalidArgumentError("unsupported causal_mask '" + mask + "' (TopLeft or BottomRight)");
  }
  const Tensor &q = in[0], &k = in[1], &v = in[2];
  DataType dt = q.dtype();
  PrimExpr batch = q.shape()[0], seq = q.shape()[1], heads = q.shape()[2], dim = q.shape()[3];
  PrimExpr seq_kv = k.shape()[1], heads_kv = k.shape()[2], dim_v = v.shape()[3];
  PrimExpr group = FloorDiv(heads, heads_kv);
  auto kv_head = [&](const PrimExpr& h) { return FloorDiv(h, group); };
  PrimExpr scale;
  if (std::optional<double> s = FloatAttr(call, "scale")) {
    scale = Const(dt, *s);
  } else if (const auto* d = dim.as<IntImmNode>()) {
    scale = Const(dt, 1.0 / std::sqrt(static_cast<double>(d->value)));
  } else {
    scale = Div(Const(dt, 1.0), Intrin("sqrt", dt, {CastTo(dt, dim)}));
  }
  // Whether key j is visible from query i.
  auto visible = [&](const PrimExpr& i, const PrimExpr& j) -> PrimExpr {
    if (mask.empty()) return PrimExpr();
    PrimExpr limit = i;
    if (mask == "BottomRight") {
      PrimExpr diff = Sub(seq_kv, seq);
      limit = Add(i, Max(diff, Sub(Int64(0), diff)));
    }
    return LE(j, limit);
  };

  std::vector<PrimExpr> score_shape = {batch, heads, seq, seq_kv};
  Tensor dot = b.Reduce("attn_qk", score_shape, dt, {dim}, Const(dt, 0),
                        [](const PrimExpr& acc, const PrimExpr& x) { return Add(acc, x); },
                        [&](const Indices& i, const Indices& r) {
                          return Mul(q({i[0], i[2], i[1], r[0]}), k({i[0], i[3], kv_head(i[1]), r[0]}));
                        });
  Tensor score = b.Compute("attn_score", score_shape, dt, [&](const Indices& i) {
    PrimExpr s = Mul(dot(i), scale);
    if (in.size() == 4) s = Add(s, in[3](BroadcastIndices(in[3], score_shape, i)));
    PrimExpr ok = visible(i[2], i[3]);
    return ok.defined() ? PrimExpr(Select(ok, s, MinValue(dt))) : s;
  });
  std::vector<PrimExpr> row_shape = {batch, heads, seq};
  Tensor row_max = b.Reduce("attn_max", row_shape, dt, {seq_kv}, MinValue(dt),
                            [](const PrimExpr& acc, const PrimExpr& x) { return Max(acc, x); },
                            [&](const Indices& i, const Indices& r) { return score({i[0], i[1], i[2], r[0]}); });
  Tensor weight = b.Compute("attn_exp", score_shape, dt, [&](const Indices& i) {
    PrimExpr e = Intrin("exp", dt, {Sub(score(i), row_max({i[0], i[1], i[2]}))});
    PrimExpr ok = visible(i[2], i[3]);
    return ok.defined() ? PrimExpr(Select(ok, e, Const(dt, 0))) : e;
  });
  Tensor row_sum = b.Reduce("attn_sum", row_shape, dt, {seq_kv}, Const(dt, 0),
                            [](const PrimExpr& acc, const PrimExpr& x) { return Add(acc, x); },
                            [&](const Indices& i, const Indices& r) { return weight({i[0], i[1], i[2], r[0]}); });
  std::vector<PrimExpr> out_shape = {batch, seq, heads, dim_v};
  Tensor acc = b.Reduce("attn_pv", out_shape, dt, {seq_kv}, Const(dt, 0),
                        [](const PrimExpr& a, const PrimExpr& x) { return Add(a, x); },
                        [&](const Indices& i, const Indices& r) {
                          return Mul(weight({i[0], i[2], i[1], r[0]}), v({i[0], r[0], kv_head(i[2]), i[3]}));
                        });
  Tensor out = b.Compute("attn_out", out_shape, dt,
                         [&](const Indices& i) { return Div(acc(i), row_sum({i[0], i[2], i[1]})); });
  return ctx->Emit(b, {out}, OpPatternKind::kOpaque, call);
}

}  // namespace

void RegisterAttentionOps(LegalizeTable* table) {
  (*table)["relax.nn.attention"] = LegalizeAttention;
  (*table)["relax.nn.attention_bias"] = LegalizeAttention;
}

}  // namespace kiln::relax::legalize
