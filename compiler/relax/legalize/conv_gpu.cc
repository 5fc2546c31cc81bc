// Convolutions for GPU targets (conv_gpu.h): one s_tir reduction per convolution, built with
// FuncBuilder like the pooling windows (pool.cc), so the GPU default schedule sees an ordinary
// data-parallel stage with a reduction inside.
#include "compiler/relax/legalize/conv_gpu.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/loops.h"

namespace kiln::relax::legalize {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

// Where each axis of `expected` sits in `layout` (each must occur exactly once).
absl::StatusOr<std::map<char, int>> Axes(const std::string& layout, const std::string& expected, const char* what) {
  std::map<char, int> pos;
  for (size_t i = 0; i < layout.size(); ++i) {
    if (expected.find(layout[i]) == std::string::npos || !pos.emplace(layout[i], static_cast<int>(i)).second) break;
  }
  if (pos.size() != expected.size() || layout.size() != expected.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("conv: ", what, " layout \"", layout, "\" must name each of ", expected, " once"));
  }
  return pos;
}

// A spatial attribute as `n` values: empty -> dflt, one value -> repeated, and for the padding
// (n = 2 * spatial axes) one value per axis -> symmetric.
absl::StatusOr<std::vector<int64_t>> PerAxis(const std::vector<int64_t>& v, size_t n, size_t nsp, int64_t dflt,
                                             const char* what) {
  if (v.empty()) return std::vector<int64_t>(n, dflt);
  if (v.size() == 1) return std::vector<int64_t>(n, v[0]);
  if (v.size() == n) return v;
  if (n == 2 * nsp && v.size() == nsp) {
    std::vector<int64_t> r(v);
    r.insert(r.end(), v.begin(), v.end());
    return r;
  }
  return absl::InvalidArgumentError(absl::StrCat("conv: ", what, " needs ", n, " values, got ", v.size()));
}

// a / k where k divides a when both are known; an error otherwise.
absl::StatusOr<PrimExpr> PerGroup(const PrimExpr& a, int64_t k, const char* what) {
  if (k == 1) return a;
  int64_t v = ConstOr(a, -1);
  if (v < 0) return absl::InvalidArgumentError("conv: grouped convolution needs constant channel counts");
  if (v % k != 0) {
    return absl::InvalidArgumentError(absl::StrCat("conv: groups (", k, ") must divide the ", what, " (", v, ")"));
  }
  return Int64(v / k);
}

}  // namespace

absl::StatusOr<Expr> LegalizeConvGPU(const ConvSpec& spec, const ir::relax::Call& call, LegalizeContext* ctx) {
  const bool two_d = spec.data_layout.find('H') != std::string::npos;
  const std::string sp = two_d ? "HW" : "W";
  const size_t nsp = sp.size();
  absl::StatusOr<std::map<char, int>> dpos = Axes(spec.data_layout, "NC" + sp, "data");
  if (!dpos.ok()) return dpos.status();
  absl::StatusOr<std::map<char, int>> kpos = Axes(spec.kernel_layout, "OI" + sp, "kernel");
  if (!kpos.ok()) return kpos.status();
  absl::StatusOr<std::map<char, int>> opos = Axes(spec.out_layout, "NC" + sp, "out");
  if (!opos.ok()) return opos.status();
  absl::StatusOr<std::vector<int64_t>> strides = PerAxis(spec.strides, nsp, nsp, 1, "strides");
  if (!strides.ok()) return strides.status();
  absl::StatusOr<std::vector<int64_t>> dilation = PerAxis(spec.dilation, nsp, nsp, 1, "dilation");
  if (!dilation.ok()) return dilation.status();
  absl::StatusOr<std::vector<int64_t>> padding = PerAxis(spec.padding, 2 * nsp, nsp, 0, "padding");
  if (!padding.ok()) return padding.status();
  for (size_t a = 0; a < nsp; ++a) {
    if ((*strides)[a] < 1 || (*dilation)[a] < 1) {
      return absl::InvalidArgumentError("conv: strides and dilation must be positive");
    }
  }
  if (spec.groups < 1) return absl::InvalidArgumentError("conv: groups must be positive");

  absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
  if (!out_tt.ok()) return out_tt.status();
  const DataType dt = (*out_tt)->dtype;
  const char* name = spec.transpose ? (two_d ? "conv2d_transpose" : "conv1d_transpose") : (two_d ? "conv2d" : "conv1d");
  FuncBuilder fb(name);
  absl::StatusOr<Tensor> data = fb.Input(call->args[0]);
  if (!data.ok()) return data.status();
  absl::StatusOr<Tensor> weight = fb.Input(call->args[1]);
  if (!weight.ok()) return weight.status();
  absl::StatusOr<std::vector<PrimExpr>> out_shape = fb.LocalShape(call->ty);
  if (!out_shape.ok()) return out_shape.status();
  if (data->ndim() != static_cast<int>(dpos->size()) || weight->ndim() != static_cast<int>(kpos->size()) ||
      out_shape->size() != opos->size()) {
    return absl::InvalidArgumentError(absl::StrCat("conv: data, weight and result must have rank ", dpos->size()));
  }
  auto dim = [](const Tensor& t, const std::map<char, int>& pos, char axis) { return t.shape()[pos.at(axis)]; };

  // Channels: cg input channels per group; og output channels per group.
  absl::StatusOr<PrimExpr> cg = PerGroup(dim(*data, *dpos, 'C'), spec.groups, "input channels");
  if (!cg.ok()) return cg.status();
  PrimExpr og = dim(*weight, *kpos, 'O');
  if (!spec.transpose) {
    absl::StatusOr<PrimExpr> per = PerGroup(og, spec.groups, "output channels");
    if (!per.ok()) return per.status();
    og = *per;
  }
  std::vector<PrimExpr> reduce = {*cg};
  for (char a : sp) reduce.push_back(dim(*weight, *kpos, a));

  auto at = [](const std::map<char, int>& pos, const std::map<char, PrimExpr>& v) {
    std::vector<PrimExpr> idx(pos.size());
    for (const auto& [axis, p] : pos) idx[p] = v.at(axis);
    return idx;
  };
  Tensor out = fb.Reduce(
      name, *out_shape, dt, reduce, Const(dt, 0), [](const PrimExpr& acc, const PrimExpr& v) { return PrimExpr(Add(acc, v)); },
      [&](const Indices& i, const Indices& k) {
        PrimExpr o = i[opos->at('C')];
        PrimExpr g = spec.groups == 1 ? Int64(0) : PrimExpr(FloorDiv(o, og));
        PrimExpr ch = Plus(Times(g, *cg), k[0]);
        std::map<char, PrimExpr> din = {{'N', i[opos->at('N')]}, {'C', ch}};
        std::map<char, PrimExpr> win;
        if (spec.transpose) {
          win = {{'I', ch}, {'O', spec.groups == 1 ? o : PrimExpr(FloorMod(o, og))}};
        } else {
          win = {{'O', o}, {'I', k[0]}};
        }
        PrimExpr inside;  // undefined: no condition yet
        auto require = [&](const PrimExpr& c) { inside = inside.defined() ? PrimExpr(And(inside, c)) : c; };
        for (size_t a = 0; a < nsp; ++a) {
          const char axis = sp[a];
          PrimExpr u = i[opos->at(axis)], tap = k[1 + a], extent = dim(*data, *dpos, axis);
          int64_t s = (*strides)[a], d = (*dilation)[a], pad = (*padding)[a];
          PrimExpr pos;
          if (spec.transpose) {
            // Output u gets input j's tap where j * s + tap * d - pad == u.
            PrimExpr num = Minus(Plus(u, Int64(pad)), Times(tap, Int64(d)));
            pos = FloorDivBy(num, s);
            require(GE(num, Int64(0)));
            if (s > 1) require(EQ(FloorMod(num, Int64(s)), Int64(0)));
          } else {
            pos = Minus(Plus(Times(u, Int64(s)), Times(tap, Int64(d))), Int64(pad));
            require(GE(pos, Int64(0)));
          }
          require(LT(pos, extent));
          din[axis] = pos;
          win[axis] = tap;
        }
        PrimExpr x = Intrin("if_then_else", dt, {inside, CastTo(dt, (*data)(at(*dpos, din))), Const(dt, 0)});
        return PrimExpr(Mul(x, CastTo(dt, (*weight)(at(*kpos, win)))));
      });
  return ctx->Emit(fb, {out}, OpPatternKind::kOutEWiseFusable, call);
}

}  // namespace kiln::relax::legalize
