// Tensor creation: R.full/zeros/ones (and the *_like forms) fill the call's result shape (the
// fill value is a 0-d tensor or a prim value), R.arange (start + i * step), R.eye/eye_like, and
// R.tril/triu (keep the elements on one side of diagonal k, zero the rest).
#include <string>
#include <vector>

#include "compiler/relax/legalize/table.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"

namespace kiln::relax::legalize {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

// Fills the result with a value: args[fill_arg] (a 0-d tensor or prim value) when fill_arg >= 0,
// else the constant `constant`. A leading tensor argument of *_like ops only gives the shape.
LegalizeFn Fill(const std::string& name, int fill_arg, double constant) {
  return [=](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
    if (!out_tt.ok()) return out_tt.status();
    DataType dt = (*out_tt)->dtype;
    FuncBuilder b(name);
    absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(call->ty);
    if (!shape.ok()) return shape.status();
    PrimExpr scalar;
    std::optional<Tensor> fill;
    if (fill_arg >= 0) {
      const Expr& arg = call->args[fill_arg];
      if (FuncBuilder::IsScalar(arg)) {
        absl::StatusOr<PrimExpr> s = b.Scalar(arg);
        if (!s.ok()) return s.status();
        scalar = *s;
      } else {
        absl::StatusOr<Tensor> t = b.Input(arg);
        if (!t.ok()) return t.status();
        fill = *t;
      }
    }
    Tensor out = b.Compute("T_" + name, *shape, dt, [&](const Indices&) {
      if (fill) return CastTo(dt, (*fill)(Indices(fill->ndim(), Int64(0))));
      if (scalar.defined()) return CastTo(dt, scalar);
      return Const(dt, constant);
    });
    return ctx->Emit(b, {out}, fill ? OpPatternKind::kBroadcast : OpPatternKind::kElemWise, call);
  };
}

absl::StatusOr<Expr> LegalizeArange(const rx::Call& call, LegalizeContext* ctx) {
  absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
  if (!out_tt.ok()) return out_tt.status();
  DataType dt = (*out_tt)->dtype;
  FuncBuilder b("arange");
  absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(call->ty);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<PrimExpr> start = b.Scalar(call->args[0]);
  if (!start.ok()) return start.status();
  absl::StatusOr<PrimExpr> step = b.Scalar(call->args[2]);
  if (!step.ok()) return step.status();
  // Computed in float64 when any part is a float, else in int64, then converted.
  bool is_float = dt.is_floating() || start->dtype().is_floating() || step->dtype().is_floating();
  DataType ct = is_float ? DataType::Float(64) : DataType::Int(64);
  Tensor out = b.Compute("T_arange", *shape, dt, [&](const Indices& i) {
    return CastTo(dt, Add(CastTo(ct, *start), Mul(CastTo(ct, i[0]), CastTo(ct, *step))));
  });
  return ctx->Emit(b, {out}, OpPatternKind::kInjective, call);
}

// R.tril / R.triu(x, k): lower keeps j <= i + k, upper keeps j >= i + k (on the last two dims).
LegalizeFn Triangle(const std::string& name, bool lower) {
  return [=](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
    if (!out_tt.ok()) return out_tt.status();
    FuncBuilder b(name);
    absl::StatusOr<Tensor> x = b.Input(call->args[0]);
    if (!x.ok()) return x.status();
    PrimExpr k = Int64(0);
    if (call->args.size() > 1) {
      absl::StatusOr<PrimExpr> kv = b.Scalar(call->args[1]);
      if (!kv.ok()) return kv.status();
      k = CastTo(DataType::Int(64), *kv);
    }
    if (x->ndim() < 2) return absl::InvalidArgumentError("needs at least two dimensions");
    Tensor out = b.Compute("T_" + name, x->shape().ToVector(), x->dtype(), [&](const Indices& i) {
      const PrimExpr& r = i[i.size() - 2];
      const PrimExpr& c = i[i.size() - 1];
      PrimExpr keep = lower ? PrimExpr(LE(c, Add(r, k))) : PrimExpr(GE(c, Add(r, k)));
      return PrimExpr(Select(keep, (*x)(i), Const(x->dtype(), 0)));
    });
    return ctx->Emit(b, {out}, OpPatternKind::kInjective, call);
  };
}

// R.eye(n, m, k) / R.eye_like(x, k): ones where j == i + k.
LegalizeFn Eye(const std::string& name, size_t k_arg) {
  return [=](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
    if (!out_tt.ok()) return out_tt.status();
    DataType dt = (*out_tt)->dtype;
    FuncBuilder b(name);
    absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(call->ty);
    if (!shape.ok()) return shape.status();
    PrimExpr k = Int64(0);
    if (call->args.size() > k_arg) {
      absl::StatusOr<PrimExpr> kv = b.Scalar(call->args[k_arg]);
      if (!kv.ok()) return kv.status();
      k = CastTo(DataType::Int(64), *kv);
    }
    Tensor out = b.Compute("T_" + name, *shape, dt, [&](const Indices& i) {
      return PrimExpr(Select(EQ(i[1], Add(i[0], k)), Const(dt, 1), Const(dt, 0)));
    });
    return ctx->Emit(b, {out}, OpPatternKind::kInjective, call);
  };
}

}  // namespace

void RegisterCreateOps(LegalizeTable* t) {
  auto& table = *t;
  table["relax.full"] = Fill("full", 1, 0);
  table["relax.full_like"] = Fill("full", 1, 0);
  table["relax.zeros"] = Fill("zeros", -1, 0);
  table["relax.zeros_like"] = Fill("zeros", -1, 0);
  table["relax.ones"] = Fill("ones", -1, 1);
  table["relax.ones_like"] = Fill("ones", -1, 1);
  table["relax.arange"] = LegalizeArange;
  table["relax.tril"] = Triangle("tril", true);
  table["relax.triu"] = Triangle("triu", false);
  table["relax.eye"] = Eye("eye", 2);
  table["relax.eye_like"] = Eye("eye", 1);
}

}  // namespace kiln::relax::legalize
