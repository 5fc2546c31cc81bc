// Neural-network operators other than the compute-heavy ones: activations (relu, gelu, gelu_tanh,
// silu, selu, leakyrelu, softplus, prelu), softmax and log_softmax (max, exp-sum and normalize
// stages, numerically stable), the normalizations layer_norm / rms_norm / group_norm / batch_norm
// / instance_norm (statistics as separate reductions: mean, then the mean of squared deviations),
// dropout at inference (identity and a mask of ones), pad (constant, edge, reflect),
// pixel_shuffle, cross_entropy_with_logits and image.resize2d (nearest and linear, TVM's
// coordinate transformation modes).
#include <cmath>
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

LegalizeFn Activation(const std::string& name, std::function<PrimExpr(const rx::Call&, const PrimExpr&)> f) {
  return [=](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
    if (!out_tt.ok()) return out_tt.status();
    FuncBuilder b(name);
    absl::StatusOr<Tensor> x = b.Input(call->args[0]);
    if (!x.ok()) return x.status();
    Tensor out = b.Compute("T_" + name, x->shape().ToVector(), x->dtype(),
                           [&](const Indices& i) { return f(call, (*x)(i)); });
    return ctx->Emit(b, {out}, OpPatternKind::kElemWise, call);
  };
}

PrimExpr C(const PrimExpr& like, double v) { return Const(like.dtype(), v); }

PrimExpr Gelu(const rx::Call&, const PrimExpr& x) {
  DataType t = x.dtype();
  PrimExpr erf = Intrin("erf", t, {Mul(x, C(x, M_SQRT1_2))});
  return Mul(Mul(C(x, 0.5), x), Add(C(x, 1), erf));
}

PrimExpr GeluTanh(const rx::Call&, const PrimExpr& x) {
  DataType t = x.dtype();
  PrimExpr inner = Mul(C(x, std::sqrt(2.0 / M_PI)), Add(x, Mul(C(x, 0.044715), Mul(x, Mul(x, x)))));
  return Mul(Mul(C(x, 0.5), x), Add(C(x, 1), Intrin("tanh", t, {inner})));
}

PrimExpr Silu(const rx::Call&, const PrimExpr& x) { return Mul(x, Intrin("sigmoid", x.dtype(), {x})); }

PrimExpr Selu(const rx::Call&, const PrimExpr& x) {
  const double alpha = 1.6732632423543772848170429916717, scale = 1.0507009873554804934193349852946;
  PrimExpr neg = Mul(C(x, alpha), Sub(Intrin("exp", x.dtype(), {x}), C(x, 1)));
  return Mul(C(x, scale), Add(Max(x, C(x, 0)), Min(neg, C(x, 0))));
}

PrimExpr LeakyRelu(const rx::Call& call, const PrimExpr& x) {
  double alpha = FloatAttr(call, "alpha").value_or(0.01);
  return Select(GT(x, C(x, 0)), x, Mul(x, C(x, alpha)));
}

PrimExpr Softplus(const rx::Call& call, const PrimExpr& x) {
  double beta = FloatAttr(call, "beta").value_or(1.0), threshold = FloatAttr(call, "threshold").value_or(20.0);
  PrimExpr bx = Mul(x, C(x, beta));
  PrimExpr soft = Div(Intrin("log", x.dtype(), {Add(C(x, 1), Intrin("exp", x.dtype(), {bx}))}), C(x, beta));
  return Select(GT(bx, C(x, threshold)), x, soft);
}

// The axes a normalization or softmax folds, and index helpers between the input and the
// statistics (which have the other axes only).
struct AxisPlan {
  std::vector<bool> reduced;
  std::vector<PrimExpr> kept_shape, reduce_extents;

  Indices InputIndex(const Indices& kept, const Indices& k) const {
    Indices idx;
    size_t ki = 0, ri = 0;
    for (bool r : reduced) idx.push_back(r ? k[ri++] : kept[ki++]);
    return idx;
  }
  Indices Kept(const Indices& full) const {
    Indices idx;
    for (size_t d = 0; d < reduced.size(); ++d) {
      if (!reduced[d]) idx.push_back(full[d]);
    }
    return idx;
  }
  Indices Reduced(const Indices& full) const {
    Indices idx;
    for (size_t d = 0; d < reduced.size(); ++d) {
      if (reduced[d]) idx.push_back(full[d]);
    }
    return idx;
  }
};

absl::StatusOr<AxisPlan> PlanAxes(const std::string& op, const Tensor& x, const std::vector<int64_t>& axes) {
  absl::StatusOr<std::vector<int>> norm = NormalizeAxes(op, axes, x.ndim());
  if (!norm.ok()) return norm.status();
  AxisPlan p;
  p.reduced.assign(x.ndim(), false);
  for (int a : *norm) p.reduced[a] = true;
  for (int d = 0; d < x.ndim(); ++d) (p.reduced[d] ? p.reduce_extents : p.kept_shape).push_back(x.shape()[d]);
  return p;
}

PrimExpr AddFn(const PrimExpr& a, const PrimExpr& v) { return Add(a, v); }

LegalizeFn Softmax(bool log) {
  return [=](const rx::Call& call, LegalizeContext* ctx) -> absl::StatusOr<Expr> {
    absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
    if (!out_tt.ok()) return out_tt.status();
    FuncBuilder b(log ? "log_softmax" : "softmax");
    absl::StatusOr<Tensor> x = b.Input(call->args[0]);
    if (!x.ok()) return x.status();
    absl::StatusOr<AxisPlan> plan = PlanAxes("softmax", *x, {IntAttr(call, "axis").value_or(-1)});
    if (!plan.ok()) return plan.status();
    const AxisPlan& p = *plan;
    DataType dt = x->dtype();
    auto load = [&](const Indices& i, const Indices& k) { return (*x)(p.InputIndex(i, k)); };
    Tensor maxelem = b.Reduce("T_softmax_maxelem", p.kept_shape, dt, p.reduce_extents, MinValue(dt),
                              [](const PrimExpr& a, const PrimExpr& v) { return PrimExpr(Max(a, v)); }, load);
    std::vector<PrimExpr> shape = x->shape().ToVector();
    Tensor out;
    if (!log) {
      Tensor e = b.Compute("T_softmax_exp", shape, dt, [&](const Indices& i) {
        return Intrin("exp", dt, {Sub((*x)(i), maxelem(p.Kept(i)))});
      });
      Tensor sum = b.Reduce("T_softmax_expsum", p.kept_shape, dt, p.reduce_extents, Const(dt, 0), AddFn,
                            [&](const Indices& i, const Indices& k) { return e(p.InputIndex(i, k)); });
      out = b.Compute("T_softmax_norm", shape, dt, [&](const Indices& i) { return PrimExpr(Div(e(i), sum(p.Kept(i)))); });
    } else {
      Tensor sum = b.Reduce("T_log_softmax_expsum", p.kept_shape, dt, p.reduce_extents, Const(dt, 0), AddFn,
                            [&](const Indices& i, const Indices& k) {
                              return Intrin("exp", dt, {Sub(load(i, k), maxelem(i))});
                            });
      out = b.Compute("T_log_softmax_norm", shape, dt, [&](const Indices& i) {
        Indices kept = p.Kept(i);
        return PrimExpr(Sub(Sub((*x)(i), maxelem(kept)), Intrin("log", dt, {sum(kept)})));
      });
    }
    return ctx->Emit(b, {out}, OpPatternKind::kOpaque, call);
  };
}

// The call's first `n` arguments as inputs of `b`, in order.
absl::StatusOr<std::vector<Tensor>> Inputs(FuncBuilder* b, const rx::Call& call, size_t n) {
  std::vector<Tensor> in;
  for (size_t k = 0; k < n; ++k) {
    absl::StatusOr<Tensor> t = b->Input(call->args[k]);
    if (!t.ok()) return t.status();
    in.push_back(*t);
  }
  return in;
}

// Mean and variance (population) of x over the plan's axes, as two reductions and two divisions.
std::pair<Tensor, Tensor> Moments(FuncBuilder* b, const Tensor& x, const AxisPlan& p,
                                  const std::function<Indices(const Indices&, const Indices&)>& input_index) {
  DataType dt = x.dtype();
  PrimExpr count = CastTo(dt, NumElements(p.reduce_extents));
  Tensor sum = b->Reduce("T_sum", p.kept_shape, dt, p.reduce_extents, Const(dt, 0), AddFn,
                         [&](const Indices& i, const Indices& k) { return x(input_index(i, k)); });
  Tensor mean = b->Compute("T_mean", p.kept_shape, dt, [&](const Indices& i) { return PrimExpr(Div(sum(i), count)); });
  Tensor sq = b->Reduce("T_sum_sq", p.kept_shape, dt, p.reduce_extents, Const(dt, 0), AddFn,
                        [&](const Indices& i, const Indices& k) {
                          PrimExpr d = Sub(x(input_index(i, k)), mean(i));
                          return PrimExpr(Mul(d, d));
                        });
  Tensor var = b->Compute("T_var", p.kept_shape, dt, [&](const Indices& i) { return PrimExpr(Div(sq(i), count)); });
  return {mean, var};
}

// The output of layer/instance/group norm: (x - mean) * rsqrt(var + epsilon), scaled by gamma and
// shifted by beta unless the call's scale / center attrs say not. The statistics are read at
// stat_index(i), gamma and beta at affine_index(i).
Tensor NormalizeAffine(FuncBuilder* b, const rx::Call& call, const std::string& name, const Tensor& x,
                       const Tensor& mean, const Tensor& var, const Tensor& gamma, const Tensor& beta,
                       const std::function<Indices(const Indices&)>& stat_index,
                       const std::function<Indices(const Indices&)>& affine_index) {
  DataType dt = x.dtype();
  double eps = FloatAttr(call, "epsilon").value_or(1e-5);
  bool center = BoolAttr(call, "center", true), scale = BoolAttr(call, "scale", true);
  return b->Compute(name, x.shape().ToVector(), dt, [&](const Indices& i) {
    Indices kept = stat_index(i);
    PrimExpr v = Mul(Sub(x(i), mean(kept)), Intrin("rsqrt", dt, {Add(var(kept), Const(dt, eps))}));
    if (scale) v = Mul(v, CastTo(dt, gamma(affine_index(i))));
    if (center) v = Add(v, CastTo(dt, beta(affine_index(i))));
    return v;
  });
}

absl::StatusOr<Expr> LegalizeLayerNorm(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("layer_norm");
  absl::StatusOr<std::vector<Tensor>> in = Inputs(&b, call, 3);
  if (!in.ok()) return in.status();
  const Tensor &x = (*in)[0], &gamma = (*in)[1], &beta = (*in)[2];
  absl::StatusOr<AxisPlan> plan = PlanAxes("nn.layer_norm", x, IntArrayAttr(call, "axes").value_or(std::vector<int64_t>{-1}));
  if (!plan.ok()) return plan.status();
  const AxisPlan& p = *plan;
  auto [mean, var] = Moments(&b, x, p, [&](const Indices& i, const Indices& k) { return p.InputIndex(i, k); });
  Tensor out = NormalizeAffine(&b, call, "T_layer_norm", x, mean, var, gamma, beta,
                               [&](const Indices& i) { return p.Kept(i); },
                               [&](const Indices& i) { return p.Reduced(i); });
  return ctx->Emit(b, {out}, OpPatternKind::kOpaque, call);
}

// R.nn.instance_norm: statistics over `axes` for each (batch, channel), scaled per channel.
absl::StatusOr<Expr> LegalizeInstanceNorm(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("instance_norm");
  absl::StatusOr<std::vector<Tensor>> in = Inputs(&b, call, 3);
  if (!in.ok()) return in.status();
  const Tensor &x = (*in)[0], &gamma = (*in)[1], &beta = (*in)[2];
  absl::StatusOr<int> caxis = NormalizeAxis("nn.instance_norm", IntAttr(call, "channel_axis").value_or(1), x.ndim());
  if (!caxis.ok()) return caxis.status();
  absl::StatusOr<AxisPlan> plan =
      PlanAxes("nn.instance_norm", x, IntArrayAttr(call, "axes").value_or(std::vector<int64_t>{}));
  if (!plan.ok()) return plan.status();
  const AxisPlan& p = *plan;
  auto [mean, var] = Moments(&b, x, p, [&](const Indices& i, const Indices& k) { return p.InputIndex(i, k); });
  Tensor out = NormalizeAffine(&b, call, "T_instance_norm", x, mean, var, gamma, beta,
                               [&](const Indices& i) { return p.Kept(i); },
                               [&](const Indices& i) { return Indices{i[*caxis]}; });
  return ctx->Emit(b, {out}, OpPatternKind::kOpaque, call);
}

absl::StatusOr<Expr> LegalizeRMSNorm(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("rms_norm");
  absl::StatusOr<Tensor> x = b.Input(call->args[0]);
  if (!x.ok()) return x.status();
  absl::StatusOr<Tensor> weight = b.Input(call->args[1]);
  if (!weight.ok()) return weight.status();
  absl::StatusOr<AxisPlan> plan = PlanAxes("nn.rms_norm", *x, IntArrayAttr(call, "axes").value_or(std::vector<int64_t>{-1}));
  if (!plan.ok()) return plan.status();
  const AxisPlan& p = *plan;
  DataType dt = x->dtype();
  double eps = FloatAttr(call, "epsilon").value_or(1e-5);
  PrimExpr count = CastTo(dt, NumElements(p.reduce_extents));
  Tensor sq = b.Reduce("T_sum_sq", p.kept_shape, dt, p.reduce_extents, Const(dt, 0), AddFn,
                       [&](const Indices& i, const Indices& k) {
                         PrimExpr v = (*x)(p.InputIndex(i, k));
                         return PrimExpr(Mul(v, v));
                       });
  Tensor out = b.Compute("T_rms_norm", x->shape().ToVector(), dt, [&](const Indices& i) {
    PrimExpr inv = Intrin("rsqrt", dt, {Add(Div(sq(p.Kept(i)), count), Const(dt, eps))});
    return PrimExpr(Mul(Mul((*x)(i), inv), CastTo(dt, (*weight)(p.Reduced(i)))));
  });
  return ctx->Emit(b, {out}, OpPatternKind::kOpaque, call);
}

// Statistics per (other dims, group): the channel axis becomes the group index, the channels of
// a group and the `axes` are folded.
absl::StatusOr<Expr> LegalizeGroupNorm(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("group_norm");
  absl::StatusOr<std::vector<Tensor>> in = Inputs(&b, call, 3);
  if (!in.ok()) return in.status();
  const Tensor &x = (*in)[0], &gamma = (*in)[1], &beta = (*in)[2];
  int64_t groups = IntAttr(call, "num_groups").value_or(1);
  absl::StatusOr<int> caxis = NormalizeAxis("nn.group_norm", IntAttr(call, "channel_axis").value_or(1), x.ndim());
  if (!caxis.ok()) return caxis.status();
  absl::StatusOr<AxisPlan> plan =
      PlanAxes("nn.group_norm", x, IntArrayAttr(call, "axes").value_or(std::vector<int64_t>{}));
  if (!plan.ok()) return plan.status();
  // The statistics' plan: the channel dim is kept with extent `groups`, and the channels within a
  // group are the first reduce index.
  AxisPlan p = *plan;
  PrimExpr per_group = FloorDivDim(x.shape()[*caxis], Int64(groups));
  p.kept_shape.clear();
  p.reduce_extents = {per_group};
  for (int d = 0; d < x.ndim(); ++d) {
    if (p.reduced[d]) {
      p.reduce_extents.push_back(x.shape()[d]);
    } else {
      p.kept_shape.push_back(d == *caxis ? Int64(groups) : x.shape()[d]);
    }
  }
  int kept_caxis = 0;
  for (int d = 0; d < *caxis; ++d) kept_caxis += !p.reduced[d];
  auto input_index = [&](const Indices& i, const Indices& k) {
    Indices idx;
    size_t ki = 0, ri = 1;
    for (int d = 0; d < x.ndim(); ++d) {
      if (p.reduced[d]) {
        idx.push_back(k[ri++]);
      } else if (d == *caxis) {
        idx.push_back(Add(Mul(i[ki++], per_group), k[0]));
      } else {
        idx.push_back(i[ki++]);
      }
    }
    return idx;
  };
  auto [mean, var] = Moments(&b, x, p, input_index);
  Tensor out = NormalizeAffine(
      &b, call, "T_group_norm", x, mean, var, gamma, beta,
      [&](const Indices& i) {
        Indices kept = p.Kept(i);
        kept[kept_caxis] = FloorDiv(i[*caxis], per_group);
        return kept;
      },
      [&](const Indices& i) { return Indices{i[*caxis]}; });
  return ctx->Emit(b, {out}, OpPatternKind::kOpaque, call);
}

// R.nn.batch_norm: (normalized, new moving mean, new moving var). With training the batch
// statistics normalize and update the moving ones by momentum; otherwise the moving ones are
// used and returned unchanged.
absl::StatusOr<Expr> LegalizeBatchNorm(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("batch_norm");
  absl::StatusOr<std::vector<Tensor>> in = Inputs(&b, call, 5);
  if (!in.ok()) return in.status();
  const Tensor &x = (*in)[0], &gamma = (*in)[1], &beta = (*in)[2], &mm = (*in)[3], &mv = (*in)[4];
  absl::StatusOr<int> axis = NormalizeAxis("nn.batch_norm", IntAttr(call, "axis").value_or(1), x.ndim());
  if (!axis.ok()) return axis.status();
  std::vector<int64_t> others;
  for (int d = 0; d < x.ndim(); ++d) {
    if (d != *axis) others.push_back(d);
  }
  DataType dt = x.dtype();
  double eps = FloatAttr(call, "epsilon").value_or(1e-5);
  double momentum = FloatAttr(call, "momentum").value_or(0.1);
  bool center = BoolAttr(call, "center", true), scale = BoolAttr(call, "scale", true);
  bool training = BoolAttr(call, "training", true);
  std::vector<PrimExpr> cshape = {x.shape()[*axis]};
  Tensor mean, var;
  if (training) {
    absl::StatusOr<AxisPlan> plan = PlanAxes("nn.batch_norm", x, others);
    if (!plan.ok()) return plan.status();
    const AxisPlan& p = *plan;
    std::tie(mean, var) = Moments(&b, x, p, [&](const Indices& i, const Indices& k) { return p.InputIndex(i, k); });
  }
  Tensor out = b.Compute("T_batch_norm", x.shape().ToVector(), dt, [&](const Indices& i) {
    Indices c = {i[*axis]};
    PrimExpr m = training ? mean(c) : mm(c), v = training ? var(c) : mv(c);
    PrimExpr r = Mul(Sub(x(i), m), Intrin("rsqrt", dt, {Add(v, Const(dt, eps))}));
    if (scale) r = Mul(r, gamma(c));
    if (center) r = Add(r, beta(c));
    return r;
  });
  auto update = [&](const Tensor& moving, const Tensor& batch, const std::string& name) {
    return b.Compute(name, cshape, dt, [&](const Indices& i) {
      if (!training) return moving(i);
      return PrimExpr(Add(Mul(moving(i), Const(dt, 1 - momentum)), Mul(batch(i), Const(dt, momentum))));
    });
  };
  Tensor new_mean = update(mm, mean, "T_moving_mean");
  Tensor new_var = update(mv, var, "T_moving_var");
  return ctx->Emit(b, {out, new_mean, new_var}, OpPatternKind::kOpaque, call);
}

// Dropout at inference: the data unchanged and a mask of ones.
absl::StatusOr<Expr> LegalizeDropout(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("dropout");
  absl::StatusOr<Tensor> x = b.Input(call->args[0]);
  if (!x.ok()) return x.status();
  std::vector<PrimExpr> shape = x->shape().ToVector();
  Tensor out = b.Compute("T_dropout", shape, x->dtype(), [&](const Indices& i) { return (*x)(i); });
  Tensor mask = b.Compute("T_dropout_mask", shape, x->dtype(), [&](const Indices&) { return Const(x->dtype(), 1); });
  return ctx->Emit(b, {out, mask}, OpPatternKind::kInjective, call);
}

absl::StatusOr<Expr> LegalizePad(const rx::Call& call, LegalizeContext* ctx) {
  absl::StatusOr<SingleInputKernel> kernel = StartSingleInputKernel(call, "pad");
  if (!kernel.ok()) return kernel.status();
  FuncBuilder& b = kernel->b;
  const Tensor& x = kernel->x;
  const std::vector<PrimExpr>& shape = kernel->shape;
  std::vector<int64_t> pw = IntArrayAttr(call, "pad_width").value_or(std::vector<int64_t>{});
  pw.resize(2 * x.ndim(), 0);
  std::string mode = StringAttr(call, "pad_mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") {
    return absl::InvalidArgumentError("unsupported pad_mode '" + mode + "'");
  }
  DataType dt = x.dtype();
  double value = FloatAttr(call, "pad_value").value_or(0.0);
  Tensor out = b.Compute("T_pad", shape, dt, [&](const Indices& i) {
    Indices idx;
    PrimExpr inside;
    for (int d = 0; d < x.ndim(); ++d) {
      PrimExpr n = x.shape()[d];
      PrimExpr j = pw[2 * d] == 0 ? i[d] : PrimExpr(Sub(i[d], Int64(pw[2 * d])));
      if (mode == "edge") {
        j = Min(Max(j, Int64(0)), Sub(n, Int64(1)));
      } else if (mode == "reflect") {
        j = Select(LT(j, Int64(0)), Sub(Int64(0), j), j);
        j = Select(GE(j, n), Sub(Mul(Int64(2), Sub(n, Int64(1))), j), j);
      } else if (pw[2 * d] != 0 || pw[2 * d + 1] != 0) {
        PrimExpr in_d = And(GE(j, Int64(0)), LT(j, n));
        inside = inside.defined() ? PrimExpr(And(inside, in_d)) : in_d;
      }
      idx.push_back(j);
    }
    if (!inside.defined()) return x(idx);
    return Intrin("if_then_else", dt, {inside, x(idx), Const(dt, value)});
  });
  return ctx->Emit(b, {out}, OpPatternKind::kInjective, call);
}

// image.resize2d: each output pixel maps back to an input coordinate by the coordinate
// transformation mode; "nearest_neighbor" rounds it, "linear" interpolates the 2x2 neighbours.
absl::StatusOr<Expr> LegalizeResize2D(const rx::Call& call, LegalizeContext* ctx) {
  absl::StatusOr<SingleInputKernel> kernel = StartSingleInputKernel(call, "resize2d");
  if (!kernel.ok()) return kernel.status();
  DataType out_dt = kernel->out_tt->dtype;
  FuncBuilder& b = kernel->b;
  const Tensor& x = kernel->x;
  const std::vector<PrimExpr>& shape = kernel->shape;
  std::string layout = StringAttr(call, "layout", "NCHW");
  std::string method = StringAttr(call, "method", "linear");
  std::string mode = StringAttr(call, "coordinate_transformation_mode", "half_pixel");
  std::string rounding = StringAttr(call, "rounding_method", "round");
  if (layout != "NCHW" && layout != "NHWC") return absl::InvalidArgumentError("unsupported layout " + layout);
  if (method != "nearest_neighbor" && method != "linear") {
    return absl::InvalidArgumentError("unsupported method " + method);
  }
  int h_axis = layout == "NCHW" ? 2 : 1, w_axis = h_axis + 1;
  DataType f = DataType::Float(32);
  // Input coordinate of output position o along a dim of input extent n, output extent m.
  auto coord = [&](const PrimExpr& o, const PrimExpr& n, const PrimExpr& m) -> PrimExpr {
    PrimExpr fo = CastTo(f, o), fn = CastTo(f, n), fm = CastTo(f, m);
    PrimExpr s = Div(fn, fm);
    if (mode == "align_corners") {
      return Select(GT(m, Int64(1)), Mul(Div(Sub(fn, Const(f, 1)), Sub(fm, Const(f, 1))), fo), Const(f, 0));
    }
    if (mode == "asymmetric") return Mul(fo, s);
    if (mode == "tf_half_pixel_for_nn") return Mul(Add(fo, Const(f, 0.5)), s);
    PrimExpr half = Sub(Mul(Add(fo, Const(f, 0.5)), s), Const(f, 0.5));
    if (mode == "pytorch_half_pixel") return Select(GT(m, Int64(1)), half, Const(f, 0));
    return half;
  };
  auto clamp = [](const PrimExpr& v, const PrimExpr& n) { return PrimExpr(Min(Max(v, Int64(0)), Sub(n, Int64(1)))); };
  PrimExpr in_h = x.shape()[h_axis], in_w = x.shape()[w_axis];
  PrimExpr out_h = shape[h_axis], out_w = shape[w_axis];
  Tensor out = b.Compute("T_resize2d", shape, out_dt, [&](const Indices& i) {
    PrimExpr cy = coord(i[h_axis], in_h, out_h), cx = coord(i[w_axis], in_w, out_w);
    auto at = [&](const PrimExpr& y, const PrimExpr& xx) {
      Indices idx = i;
      idx[h_axis] = y;
      idx[w_axis] = xx;
      return CastTo(f, x(idx));
    };
    if (method == "nearest_neighbor") {
      std::string r = rounding.empty() ? (mode == "tf_half_pixel_for_nn" ? "floor" : "round") : rounding;
      auto pick = [&](const PrimExpr& c) -> PrimExpr {
        PrimExpr v = r == "floor" ? Intrin("floor", f, {c})
                   : r == "ceil" ? Intrin("ceil", f, {c})
                   : r == "round_prefer_ceil" ? Intrin("floor", f, {Add(c, Const(f, 0.5))})
                   : r == "round_prefer_floor" ? Intrin("ceil", f, {Sub(c, Const(f, 0.5))})
                   : Intrin("nearbyint", f, {c});
        return CastTo(DataType::Int(64), v);
      };
      return CastTo(out_dt, at(clamp(pick(cy), in_h), clamp(pick(cx), in_w)));
    }
    PrimExpr fy = Intrin("floor", f, {cy}), fx = Intrin("floor", f, {cx});
    PrimExpr y0 = CastTo(DataType::Int(64), fy), x0 = CastTo(DataType::Int(64), fx);
    PrimExpr ly = Sub(cy, fy), lx = Sub(cx, fx);
    PrimExpr ya = clamp(y0, in_h), yb = clamp(Add(y0, Int64(1)), in_h);
    PrimExpr xa = clamp(x0, in_w), xb = clamp(Add(x0, Int64(1)), in_w);
    auto lerp = [&](const PrimExpr& a, const PrimExpr& c, const PrimExpr& t) {
      return PrimExpr(Add(Mul(a, Sub(Const(f, 1), t)), Mul(c, t)));
    };
    PrimExpr top = lerp(at(ya, xa), at(ya, xb), lx), bottom = lerp(at(yb, xa), at(yb, xb), lx);
    return CastTo(out_dt, lerp(top, bottom, ly));
  });
  return ctx->Emit(b, {out}, OpPatternKind::kInjective, call);
}

// R.nn.pixel_shuffle: (..., C*r*r, H, W) -> (..., C, H*r, W*r), channel c*r*r + (h%r)*r + w%r.
absl::StatusOr<Expr> LegalizePixelShuffle(const rx::Call& call, LegalizeContext* ctx) {
  absl::StatusOr<SingleInputKernel> kernel = StartSingleInputKernel(call, "pixel_shuffle");
  if (!kernel.ok()) return kernel.status();
  FuncBuilder& b = kernel->b;
  const Tensor& x = kernel->x;
  const std::vector<PrimExpr>& shape = kernel->shape;
  PrimExpr r = Int64(IntAttr(call, "upscale_factor").value_or(1));
  size_t c = shape.size() - 3;
  Tensor out = b.Compute("T_pixel_shuffle", shape, x.dtype(), [&](const Indices& i) {
    Indices idx(i.begin(), i.begin() + c);
    PrimExpr h = i[c + 1], w = i[c + 2];
    idx.push_back(Add(Add(Mul(Mul(i[c], r), r), Mul(FloorMod(h, r), r)), FloorMod(w, r)));
    idx.push_back(FloorDiv(h, r));
    idx.push_back(FloorDiv(w, r));
    return x(idx);
  });
  return ctx->Emit(b, {out}, OpPatternKind::kInjective, call);
}

// R.nn.cross_entropy_with_logits: -sum(predictions * labels), divided by the batch size for 2-d
// inputs (TVM's definition).
absl::StatusOr<Expr> LegalizeCrossEntropy(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("cross_entropy_with_logits");
  absl::StatusOr<Tensor> pred = b.Input(call->args[0]);
  if (!pred.ok()) return pred.status();
  absl::StatusOr<Tensor> labels = b.Input(call->args[1]);
  if (!labels.ok()) return labels.status();
  DataType dt = pred->dtype();
  std::vector<PrimExpr> all = pred->shape().ToVector();
  Tensor sum = b.Reduce("T_sum", {}, dt, all, Const(dt, 0), AddFn,
                        [&](const Indices&, const Indices& k) { return PrimExpr(Mul((*pred)(k), (*labels)(k))); });
  Tensor out = b.Compute("T_cross_entropy", {}, dt, [&](const Indices&) {
    PrimExpr v = Sub(Const(dt, 0), sum({}));
    return pred->ndim() == 2 ? PrimExpr(Div(v, CastTo(dt, all[0]))) : v;
  });
  return ctx->Emit(b, {out}, OpPatternKind::kCommReduce, call);
}

absl::StatusOr<Expr> LegalizePRelu(const rx::Call& call, LegalizeContext* ctx) {
  FuncBuilder b("prelu");
  absl::StatusOr<Tensor> x = b.Input(call->args[0]);
  if (!x.ok()) return x.status();
  absl::StatusOr<Tensor> alpha = b.Input(call->args[1]);
  if (!alpha.ok()) return alpha.status();
  absl::StatusOr<int> axis = NormalizeAxis("nn.prelu", IntAttr(call, "axis").value_or(1), x->ndim());
  if (!axis.ok()) return axis.status();
  Tensor out = b.Compute("T_prelu", x->shape().ToVector(), x->dtype(), [&](const Indices& i) {
    PrimExpr v = (*x)(i);
    return PrimExpr(Select(GT(v, C(v, 0)), v, Mul(v, (*alpha)({i[*axis]}))));
  });
  return ctx->Emit(b, {out}, OpPatternKind::kBroadcast, call);
}

}  // namespace

void RegisterNNOps(LegalizeTable* t) {
  auto& table = *t;
  table["relax.nn.relu"] = Activation("relu", [](const rx::Call&, const PrimExpr& x) { return PrimExpr(Max(x, C(x, 0))); });
  table["relax.nn.gelu"] = Activation("gelu", Gelu);
  table["relax.nn.gelu_tanh"] = Activation("gelu_tanh", GeluTanh);
  table["relax.nn.silu"] = Activation("silu", Silu);
  table["relax.nn.selu"] = Activation("selu", Selu);
  table["relax.nn.leakyrelu"] = Activation("leakyrelu", LeakyRelu);
  table["relax.nn.softplus"] = Activation("softplus", Softplus);
  table["relax.nn.prelu"] = LegalizePRelu;
  table["relax.nn.softmax"] = Softmax(false);
  table["relax.nn.log_softmax"] = Softmax(true);
  table["relax.nn.layer_norm"] = LegalizeLayerNorm;
  table["relax.nn.rms_norm"] = LegalizeRMSNorm;
  table["relax.nn.group_norm"] = LegalizeGroupNorm;
  table["relax.nn.instance_norm"] = LegalizeInstanceNorm;
  table["relax.nn.batch_norm"] = LegalizeBatchNorm;
  table["relax.nn.dropout"] = LegalizeDropout;
  table["relax.nn.pad"] = LegalizePad;
  table["relax.nn.pixel_shuffle"] = LegalizePixelShuffle;
  table["relax.nn.cross_entropy_with_logits"] = LegalizeCrossEntropy;
  table["relax.image.resize2d"] = LegalizeResize2D;
}

}  // namespace kiln::relax::legalize
