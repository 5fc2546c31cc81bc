// Neural-network operators (R.nn.*) and R.image.*: convolutions and pooling in any N/C/spatial
// layout, activations, softmax, normalizations, losses, dropout, pad, pixel_shuffle, attention,
// and image resize/grid_sample/affine_grid. Spatial output sizes follow the usual formula and are
// built as folded PrimExprs for symbolic inputs. R.nn.relu6 and R.nn.attention[_bias] are script
// functions (see OpSchema::expand): relu6 is a clip, and attention with a bias is
// relax.nn.attention_bias, as TVM's Python builds them.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

const char* SpatialLetters(int s) { return s == 1 ? "W" : s == 2 ? "HW" : "DHW"; }

// Position of each letter of `canonical` in `layout` (a permutation of the same letters).
absl::StatusOr<std::vector<int>> LayoutPositions(const std::string& op, const std::string& layout,
                                                 const std::string& canonical) {
  if (layout.size() != canonical.size()) {
    return OpError(op, "unsupported layout \"" + layout + "\" (expected a permutation of " + canonical + ")");
  }
  std::vector<int> pos;
  for (char c : canonical) {
    size_t p = layout.find(c);
    if (p == std::string::npos) {
      return OpError(op, "unsupported layout \"" + layout + "\" (expected a permutation of " + canonical + ")");
    }
    pos.push_back(static_cast<int>(p));
  }
  return pos;
}

// An axis of a layout such as "NCHW" or the packed "NCHW4c": a primal axis (upper-case letter,
// factor 0) or a sub-axis "<factor><letter>" splitting the primal axis of that letter.
struct LayoutAxis {
  char letter;  // upper case for both kinds
  int64_t factor;
};

// The axes of `layout`, whose primal axes must be a permutation of `canonical`.
absl::StatusOr<std::vector<LayoutAxis>> ParseLayout(const std::string& op, const std::string& layout,
                                                    const std::string& canonical) {
  auto bad = [&]() {
    return OpError(op, "unsupported layout \"" + layout + "\" (expected a permutation of " + canonical +
                           ", optionally with sub-axes such as 4c)");
  };
  std::vector<LayoutAxis> axes;
  std::string primal;
  for (size_t i = 0; i < layout.size();) {
    int64_t factor = 0;
    size_t j = i;
    while (j < layout.size() && std::isdigit(static_cast<unsigned char>(layout[j]))) {
      factor = factor * 10 + (layout[j] - '0');
      if (factor > (int64_t{1} << 40)) return bad();
      ++j;
    }
    if (j == layout.size() || !std::isalpha(static_cast<unsigned char>(layout[j]))) return bad();
    char c = layout[j];
    bool sub = std::islower(static_cast<unsigned char>(c));
    if (sub != (j > i) || (sub && factor <= 0)) return bad();
    axes.push_back({static_cast<char>(std::toupper(static_cast<unsigned char>(c))), sub ? factor : 0});
    if (!sub) primal.push_back(c);
    i = j + 1;
  }
  if (primal.size() != canonical.size()) return bad();
  for (char c : canonical) {
    if (std::count(primal.begin(), primal.end(), c) != 1) return bad();
  }
  for (const LayoutAxis& a : axes) {
    if (a.factor > 0 && primal.find(a.letter) == std::string::npos) return bad();
  }
  return axes;
}

// The primal dims, in `canonical` order, of a tensor of shape `shape` in `layout` (a split axis
// is its outer size times its sub-axis size).
absl::StatusOr<std::vector<PrimExpr>> FromLayout(const std::string& op, const std::vector<PrimExpr>& shape,
                                                 const std::string& layout, const std::string& canonical) {
  absl::StatusOr<std::vector<LayoutAxis>> axes = ParseLayout(op, layout, canonical);
  if (!axes.ok()) return axes.status();
  if (axes->size() != shape.size()) {
    return OpError(op, absl::StrCat("expects data of rank ", axes->size(), " for layout \"", layout, "\", got ",
                                    shape.size()));
  }
  std::vector<PrimExpr> out;
  for (char c : canonical) {
    PrimExpr dim;
    for (size_t i = 0; i < axes->size(); ++i) {
      if ((*axes)[i].letter == c && (*axes)[i].factor == 0) dim = dim.defined() ? MulDim(shape[i], dim) : shape[i];
      if ((*axes)[i].letter == c && (*axes)[i].factor > 0) dim = dim.defined() ? MulDim(dim, shape[i]) : shape[i];
    }
    out.push_back(dim);
  }
  return out;
}

// The shape in `layout` of a tensor whose primal dims are `canon_dims` (in `canonical` order): a
// split axis becomes its size divided by the factor, the sub-axis the factor.
absl::StatusOr<std::vector<PrimExpr>> ToLayout(const std::string& op, const std::vector<PrimExpr>& canon_dims,
                                               const std::string& canonical, const std::string& layout) {
  absl::StatusOr<std::vector<LayoutAxis>> axes = ParseLayout(op, layout, canonical);
  if (!axes.ok()) return axes.status();
  std::vector<PrimExpr> out;
  for (const LayoutAxis& a : *axes) {
    if (a.factor > 0) {
      out.push_back(Dim(a.factor));
      continue;
    }
    PrimExpr dim = canon_dims[canonical.find(a.letter)];
    for (const LayoutAxis& b : *axes) {
      if (b.letter == a.letter && b.factor > 0) dim = FloorDivDim(dim, Dim(b.factor));
    }
    out.push_back(dim);
  }
  return out;
}

// Expands strides/dilation to `s` entries and padding to 2*s (all befores, then all afters).
std::function<void(Map<String, ObjectRef>*)> ExpandWindowAttrs(int s, const std::string& layout_attr,
                                                               const std::vector<std::string>& per_dim) {
  return [s, layout_attr, per_dim](Map<String, ObjectRef>* attrs) {
    auto ints = [&](const std::string& name) {
      std::vector<IntImm> v;
      if (const auto* a = attrs->Get(String(name)).as<ArrayNode>()) {
        for (const ObjectRef& x : a->data) v.push_back(IntImm(x.ptr()));
      }
      return v;
    };
    for (const std::string& name : per_dim) {
      std::vector<IntImm> v = ints(name);
      if (v.size() == 1 && s > 1) attrs->Set(String(name), Array<IntImm>(std::vector<IntImm>(s, v[0])));
    }
    std::vector<IntImm> pad = ints("padding");
    if (!pad.empty() && static_cast<int>(pad.size()) < 2 * s) {
      std::vector<IntImm> full;
      if (pad.size() == 1) full.assign(2 * s, pad[0]);
      if (static_cast<int>(pad.size()) == s) {
        full = pad;
        full.insert(full.end(), pad.begin(), pad.end());
      }
      if (!full.empty()) attrs->Set(String("padding"), Array<IntImm>(full));
    }
    if (!attrs->Get(String("out_layout")).defined()) attrs->Set(String("out_layout"), attrs->Get(String(layout_attr)));
  };
}

int64_t At(const std::vector<int64_t>& v, size_t i, int64_t dflt) { return i < v.size() ? v[i] : dflt; }

InferFn ConvInfer(const std::string& op, int s, bool transpose) {
  return [op, s, transpose](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
    if (!x.ok()) return x.status();
    absl::StatusOr<TensorInfo> w = GetTensorInfo(ArgType(call, 1), op, "weight");
    if (!w.ok()) return w.status();
    DataType dtype = DTypeAttr(call, "out_dtype");
    if (dtype.is_void()) dtype = x->dtype;
    int ndim = 2 + s;
    // Packed layouts (NCHW4c, OIHW4o): the rank grows by one per sub-axis. kiln infers the rank
    // of the result only; its shape is left to the binding's annotation.
    std::string data_layout = StringAttr(call, "data_layout", ""), kernel_layout = StringAttr(call, "kernel_layout", "");
    auto packed = [](const std::string& l) { return std::any_of(l.begin(), l.end(), [](char c) { return std::islower(c); }); };
    if (packed(data_layout) || packed(kernel_layout)) {
      std::string out = StringAttr(call, "out_layout", data_layout);
      if (out.empty()) out = data_layout;
      return MakeTensorType(dtype, static_cast<int>(std::count_if(out.begin(), out.end(), [](char c) { return std::isalpha(c); })));
    }
    if (x->ndim >= 0 && x->ndim != ndim) return OpError(op, absl::StrCat("expects data of rank ", ndim, ", got ", x->ndim));
    if (w->ndim >= 0 && w->ndim != ndim) return OpError(op, absl::StrCat("expects weight of rank ", ndim, ", got ", w->ndim));
    std::string sp = SpatialLetters(s);
    absl::StatusOr<std::vector<int>> dpos = LayoutPositions(op, StringAttr(call, "data_layout", ""), "NC" + sp);
    if (!dpos.ok()) return dpos.status();
    absl::StatusOr<std::vector<int>> kpos = LayoutPositions(op, StringAttr(call, "kernel_layout", ""), "OI" + sp);
    if (!kpos.ok()) return kpos.status();
    std::string out_layout = StringAttr(call, "out_layout", StringAttr(call, "data_layout", ""));
    if (!x->shape_known || !w->shape_known) {
      absl::StatusOr<std::vector<int>> opos = LayoutPositions(op, out_layout, "NC" + sp);
      if (!opos.ok()) return opos.status();
      return MakeTensorType(dtype, ndim);
    }
    int64_t groups = IntAttr(call, "groups").value_or(1);
    std::vector<int64_t> strides = IntArrayAttr(call, "strides").value_or(std::vector<int64_t>{});
    std::vector<int64_t> padding = IntArrayAttr(call, "padding").value_or(std::vector<int64_t>{});
    std::vector<int64_t> dilation = IntArrayAttr(call, "dilation").value_or(std::vector<int64_t>{});
    std::vector<int64_t> out_pad = IntArrayAttr(call, "output_padding").value_or(std::vector<int64_t>{});
    PrimExpr n = x->shape[(*dpos)[0]], c = x->shape[(*dpos)[1]];
    PrimExpr ko = w->shape[(*kpos)[0]], ki = w->shape[(*kpos)[1]];
    // Regular conv (kernel OIHW): C == I * groups, out channels O. Transposed (kernel IOHW): C == I,
    // out channels O * groups.
    PrimExpr in_channels_expected = transpose ? ki : MulDim(ki, Dim(groups));
    if (ProveNotEqual(c, in_channels_expected)) {
      return OpError(op, absl::StrCat("input channels ", DimToString(c), " do not match the kernel's ",
                                      DimToString(in_channels_expected), " (groups=", groups, ")"));
    }
    PrimExpr out_c = transpose ? MulDim(ko, Dim(groups)) : ko;
    std::vector<PrimExpr> out = {n, out_c};
    for (int i = 0; i < s; ++i) {
      PrimExpr in = x->shape[(*dpos)[2 + i]];
      PrimExpr k = w->shape[(*kpos)[2 + i]];
      int64_t st = At(strides, i, 1), dl = At(dilation, i, 1);
      // Dim arithmetic, not int64: hostile padding attributes must not overflow.
      PrimExpr pads = AddDim(Dim(At(padding, i, 0)), Dim(At(padding, s + i, 0)));
      PrimExpr eff_k = AddDim(MulDim(SubDim(k, Dim(1)), Dim(dl)), Dim(1));
      if (transpose) {
        PrimExpr o = AddDim(MulDim(SubDim(in, Dim(1)), Dim(st)), eff_k);
        out.push_back(AddDim(o, SubDim(Dim(At(out_pad, i, 0)), pads)));
      } else {
        PrimExpr span = SubDim(AddDim(in, pads), eff_k);
        if (auto cs = AsConst(Simplify(span)); cs && *cs < 0) {
          return OpError(op, absl::StrCat("the kernel (", DimToString(eff_k), " with dilation) is larger than the padded input (",
                                          DimToString(AddDim(in, pads)), ")"));
        }
        out.push_back(AddDim(FloorDivDim(span, Dim(st)), Dim(1)));
      }
    }
    absl::StatusOr<std::vector<PrimExpr>> shape = ToLayout(op, out, "NC" + sp, out_layout);
    if (!shape.ok()) return shape.status();
    return MakeTensorType(*shape, dtype);
  };
}

// The data operand of a pooling op in its `layout` attribute (packed ones such as NCHW4c too):
// the primal dims (N, C, spatial...) the window arithmetic runs on, and how to lay out the result.
struct PoolData {
  ir::DataType dtype;
  std::string canonical;   // NC + spatial letters
  std::string out_layout;  // the result's layout
  int out_ndim = 0;
  std::optional<std::vector<PrimExpr>> primal;  // unset: the shape is not known
};

absl::StatusOr<PoolData> ReadPoolData(const ir::relax::Call& call, const std::string& op, int s) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
  if (!x.ok()) return x.status();
  PoolData d;
  d.dtype = x->dtype;
  d.canonical = std::string("NC") + SpatialLetters(s);
  std::string layout = StringAttr(call, "layout", d.canonical);
  d.out_layout = StringAttr(call, "out_layout", layout);
  absl::StatusOr<std::vector<LayoutAxis>> in_axes = ParseLayout(op, layout, d.canonical);
  if (!in_axes.ok()) return in_axes.status();
  absl::StatusOr<std::vector<LayoutAxis>> out_axes = ParseLayout(op, d.out_layout, d.canonical);
  if (!out_axes.ok()) return out_axes.status();
  int ndim = static_cast<int>(in_axes->size());
  if (x->ndim >= 0 && x->ndim != ndim) return OpError(op, absl::StrCat("expects data of rank ", ndim, ", got ", x->ndim));
  d.out_ndim = static_cast<int>(out_axes->size());
  if (!x->shape_known) return d;
  absl::StatusOr<std::vector<PrimExpr>> in = FromLayout(op, x->shape, layout, d.canonical);
  if (!in.ok()) return in.status();
  d.primal = std::move(*in);
  return d;
}

// Pooling in any layout, packed ones (NCHW4c) included: the window arithmetic runs on the primal
// dims, and the result is laid out in out_layout.
InferFn PoolInfer(const std::string& op, int s) {
  return [op, s](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<PoolData> d = ReadPoolData(call, op, s);
    if (!d.ok()) return d.status();
    if (!d->primal) return MakeTensorType(d->dtype, d->out_ndim);
    const std::vector<PrimExpr>& in = *d->primal;
    std::vector<int64_t> pool = IntArrayAttr(call, "pool_size").value_or(std::vector<int64_t>{});
    std::vector<int64_t> strides = IntArrayAttr(call, "strides").value_or(std::vector<int64_t>{});
    std::vector<int64_t> padding = IntArrayAttr(call, "padding").value_or(std::vector<int64_t>{});
    std::vector<int64_t> dilation = IntArrayAttr(call, "dilation").value_or(std::vector<int64_t>{});
    bool ceil_mode = BoolAttr(call, "ceil_mode", false);
    std::vector<PrimExpr> out = {in[0], in[1]};
    for (int i = 0; i < s; ++i) {
      int64_t k = At(pool, i, 1), st = At(strides, i, 1), dl = At(dilation, i, 1);
      // pads - dl * (k - 1) - 1 (+ st - 1 in ceil mode), in Dim arithmetic so that hostile
      // attributes cannot overflow int64.
      PrimExpr pads = AddDim(Dim(At(padding, i, 0)), Dim(At(padding, s + i, 0)));
      PrimExpr extra = SubDim(SubDim(pads, MulDim(Dim(dl), SubDim(Dim(k), Dim(1)))), Dim(1));
      if (ceil_mode) extra = AddDim(extra, SubDim(Dim(st), Dim(1)));
      out.push_back(AddDim(FloorDivDim(AddDim(in[2 + i], extra), Dim(st)), Dim(1)));
    }
    absl::StatusOr<std::vector<PrimExpr>> shape = ToLayout(op, out, d->canonical, d->out_layout);
    if (!shape.ok()) return shape.status();
    return MakeTensorType(*shape, d->dtype);
  };
}

InferFn AdaptivePoolInfer(const std::string& op, int s) {
  return [op, s](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<PoolData> d = ReadPoolData(call, op, s);
    if (!d.ok()) return d.status();
    if (!d->primal) return MakeTensorType(d->dtype, d->out_ndim);
    const std::vector<PrimExpr>& in = *d->primal;
    std::optional<std::vector<int64_t>> size = IntArrayAttr(call, "output_size");
    std::vector<PrimExpr> out = {in[0], in[1]};
    for (int i = 0; i < s; ++i) {
      if (!size || size->empty()) {
        out.push_back(in[2 + i]);
      } else {
        out.push_back(Dim(size->size() == 1 ? (*size)[0] : At(*size, i, 1)));
      }
    }
    absl::StatusOr<std::vector<PrimExpr>> shape = ToLayout(op, out, d->canonical, d->out_layout);
    if (!shape.ok()) return shape.status();
    return MakeTensorType(*shape, d->dtype);
  };
}

// Elementwise activations and shape-preserving normalizations. `axis_attr` / `axes_attr` name an
// attribute whose axes must be in range; `float_only` requires a floating dtype.
InferFn SameTypeInfer(const std::string& op, bool float_only, const std::string& axis_attr = "",
                      const std::string& axes_attr = "") {
  return [op, float_only, axis_attr, axes_attr](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
    if (!x.ok()) return x.status();
    if (float_only && !x->dtype.is_void() && !x->dtype.is_floating()) {
      return OpError(op, "expects a floating-point input, got " + x->dtype.ToString());
    }
    if (x->ndim >= 0) {
      if (!axis_attr.empty()) {
        absl::StatusOr<int> a = NormalizeAxis(op, IntAttr(call, axis_attr).value_or(0), x->ndim);
        if (!a.ok()) return a.status();
      }
      if (!axes_attr.empty()) {
        absl::StatusOr<std::vector<int>> a =
            NormalizeAxes(op, IntArrayAttr(call, axes_attr).value_or(std::vector<int64_t>{}), x->ndim);
        if (!a.ok()) return a.status();
      }
    }
    return MakeTensorType(*x);
  };
}

// layer_norm / rms_norm / group_norm: scale and shift vectors must match the normalized dims.
InferFn NormInfer(const std::string& op, const std::vector<std::string>& params) {
  InferFn base = SameTypeInfer(op, true, "", "axes");
  return [op, params, base](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<Type> out = base(call);
    if (!out.ok()) return out;
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
    if (!x->shape_known || op == "nn.group_norm") return out;
    absl::StatusOr<std::vector<int>> axes =
        NormalizeAxes(op, IntArrayAttr(call, "axes").value_or(std::vector<int64_t>{}), x->ndim);
    std::vector<PrimExpr> expect;
    for (int a : *axes) expect.push_back(x->shape[a]);
    for (size_t i = 0; i < params.size() && i + 1 < call->args.size(); ++i) {
      absl::StatusOr<TensorInfo> p = GetTensorInfo(ArgType(call, i + 1), op, params[i]);
      if (!p.ok()) return p.status();
      if (!p->shape_known) continue;
      bool bad = p->shape.size() != expect.size();
      for (size_t d = 0; !bad && d < expect.size(); ++d) bad = ProveNotEqual(p->shape[d], expect[d]);
      if (bad) {
        return OpError(op, absl::StrCat(params[i], " has shape ", ShapeToString(p->shape), " but the normalized axes have ",
                                        ShapeToString(expect)));
      }
    }
    return out;
  };
}

absl::StatusOr<Type> InferBatchNorm(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "nn.batch_norm", "data");
  if (!x.ok()) return x.status();
  Type data = MakeTensorType(*x);
  Type stat = MakeTensorType(x->dtype, 1);
  if (x->ndim >= 0) {
    absl::StatusOr<int> axis = NormalizeAxis("nn.batch_norm", IntAttr(call, "axis").value_or(1), x->ndim);
    if (!axis.ok()) return axis.status();
    if (x->shape_known) stat = MakeTensorType({x->shape[*axis]}, x->dtype);
  }
  return Type(TupleType({data, stat, stat}));
}

absl::StatusOr<Type> InferDropout(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "nn.dropout", "x");
  if (!x.ok()) return x.status();
  Type t = MakeTensorType(*x);
  return Type(TupleType({t, t}));
}

absl::StatusOr<Type> InferPad(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "nn.pad", "data");
  if (!x.ok()) return x.status();
  std::vector<int64_t> pw = IntArrayAttr(call, "pad_width").value_or(std::vector<int64_t>{});
  if (x->ndim >= 0 && static_cast<int>(pw.size()) != 2 * x->ndim) {
    return OpError("nn.pad", absl::StrCat("pad_width has ", pw.size(), " entries; a tensor of rank ", x->ndim,
                                          " needs ", 2 * x->ndim));
  }
  if (!x->shape_known) return MakeTensorType(*x);
  std::vector<PrimExpr> shape;
  for (int i = 0; i < x->ndim; ++i) shape.push_back(AddDim(x->shape[i], Dim(pw[2 * i] + pw[2 * i + 1])));
  return MakeTensorType(shape, x->dtype);
}

// nn.attention / attention_bias / attention_var_len: query, key and value are (batch, seq, heads,
// head_dim); query heads are a multiple of key/value heads (grouped-query attention).
InferFn AttentionInfer(const std::string& op) {
  return [op](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    const char* names[] = {"query", "key", "value", "bias"};
    bool has_bias = op == "nn.attention_bias";
    std::vector<TensorInfo> in;
    for (size_t i = 0; i < (has_bias ? 4u : 3u); ++i) {
      absl::StatusOr<TensorInfo> t = GetTensorInfo(ArgType(call, i), op, names[i]);
      if (!t.ok()) return t.status();
      if (t->ndim >= 0 && t->ndim != 4) {
        return OpError(op, absl::StrCat(names[i], " must be 4-D (batch, seq, heads, dim), got rank ", t->ndim));
      }
      in.push_back(*t);
    }
    const TensorInfo &q = in[0], &k = in[1], &v = in[2];
    for (int i = 0; i < 3; ++i) {
      if (!in[i].shape_known) return MakeTensorType(q.dtype, 4);
    }
    auto differ = [&](const PrimExpr& a, const PrimExpr& b, const std::string& what) -> absl::Status {
      if (ProveNotEqual(a, b)) return OpError(op, what + " differ: " + DimToString(a) + " vs " + DimToString(b));
      return absl::OkStatus();
    };
    for (const absl::Status& st : {differ(q.shape[0], k.shape[0], "query and key batch sizes"),
                                   differ(q.shape[0], v.shape[0], "query and value batch sizes"),
                                   differ(k.shape[1], v.shape[1], "key and value sequence lengths"),
                                   differ(q.shape[3], k.shape[3], "query and key head dims")}) {
      if (!st.ok()) return st;
    }
    for (const TensorInfo* kv : {&k, &v}) {
      auto hq = AsConst(q.shape[2]), hk = AsConst(kv->shape[2]);
      if (hq && hk && (*hk == 0 || *hq % *hk != 0)) {
        return OpError(op, absl::StrCat("query heads (", *hq, ") must be a multiple of key/value heads (", *hk, ")"));
      }
    }
    if (has_bias && in[3].shape_known) {
      // bias is (batch, heads, seq_q, seq_k); the first three may broadcast from 1.
      const std::vector<PrimExpr>& b = in[3].shape;
      const PrimExpr want[] = {q.shape[0], q.shape[2], q.shape[1]};
      for (int i = 0; i < 3; ++i) {
        if (ProveNotEqual(b[i], want[i]) && ProveNotEqual(b[i], Dim(1))) {
          return OpError(op, absl::StrCat("bias dimension ", i, " (", DimToString(b[i]), ") is neither ",
                                          DimToString(want[i]), " nor 1"));
        }
      }
      absl::Status st = differ(b[3], k.shape[1], "bias and key sequence lengths");
      if (!st.ok()) return st;
    }
    return MakeTensorType({q.shape[0], q.shape[1], q.shape[2], v.shape[3]}, q.dtype);
  };
}

// R.nn.attention(q, k, v, bias=None, ...) and R.nn.attention_bias(...): the operator is chosen by
// whether a bias is given.
absl::StatusOr<ir::relax::Call> ExpandAttention(const ir::relax::Call& call, const IRModule& module) {
  std::vector<std::pair<std::string, ObjectRef>> attrs;
  for (const auto& [k, v] : call->attrs.items()) attrs.emplace_back(k.str(), v);
  return MakeOpCallByName(call->args.size() == 4 ? "relax.nn.attention_bias" : "relax.nn.attention", call->args, attrs,
                          module, call->span);
}

// R.nn.relu6(x) = R.clip(x, 0, 6).
absl::StatusOr<ir::relax::Call> ExpandRelu6(const ir::relax::Call& call, const IRModule& module) {
  return MakeOpCallByName("relax.clip",
                          {call->args[0], ir::relax::PrimValue(IntImm(DataType::Int(64), 0)),
                           ir::relax::PrimValue(IntImm(DataType::Int(64), 6))},
                          {}, module, call->span);
}

absl::StatusOr<Type> InferInstanceNorm(const ir::relax::Call& call) {
  const std::string op = "nn.instance_norm";
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
  if (!x.ok()) return x.status();
  if (!x->dtype.is_void() && !x->dtype.is_floating()) {
    return OpError(op, "expects a floating-point input, got " + x->dtype.ToString());
  }
  if (x->ndim < 0) return MakeTensorType(*x);
  absl::StatusOr<int> c = NormalizeAxis(op, IntAttr(call, "channel_axis").value_or(1), x->ndim);
  if (!c.ok()) return c.status();
  absl::StatusOr<std::vector<int>> axes =
      NormalizeAxes(op, IntArrayAttr(call, "axes").value_or(std::vector<int64_t>{}), x->ndim);
  if (!axes.ok()) return axes.status();
  const char* names[] = {"gamma", "beta"};
  for (size_t i = 1; i < 3 && i < call->args.size(); ++i) {
    absl::StatusOr<TensorInfo> p = GetTensorInfo(ArgType(call, i), op, names[i - 1]);
    if (!p.ok()) return p.status();
    if (p->ndim >= 0 && p->ndim != 1) return OpError(op, std::string(names[i - 1]) + " must be 1-D");
    if (p->shape_known && x->shape_known && ProveNotEqual(p->shape[0], x->shape[*c])) {
      return OpError(op, absl::StrCat(names[i - 1], " has ", DimToString(p->shape[0]), " entries but there are ",
                                      DimToString(x->shape[*c]), " channels"));
    }
  }
  return MakeTensorType(*x);
}

absl::StatusOr<Type> InferNllLoss(const ir::relax::Call& call) {
  const std::string op = "nn.nll_loss";
  absl::StatusOr<TensorInfo> pred = GetTensorInfo(ArgType(call, 0), op, "predictions");
  if (!pred.ok()) return pred.status();
  absl::StatusOr<TensorInfo> tgt = GetTensorInfo(ArgType(call, 1), op, "targets");
  if (!tgt.ok()) return tgt.status();
  if (!tgt->dtype.is_void() && !tgt->dtype.is_int()) {
    return OpError(op, "targets must have an integer dtype, got " + tgt->dtype.ToString());
  }
  std::string reduction = StringAttr(call, "reduction", "mean");
  if (reduction != "mean" && reduction != "sum" && reduction != "none") {
    return OpError(op, "reduction must be \"mean\", \"sum\" or \"none\", got \"" + reduction + "\"");
  }
  // predictions is (C,) with a scalar target, or (N, C, d1, ...) with targets (N, d1, ...).
  if (pred->ndim == 0) return OpError(op, "predictions must have rank >= 1");
  if (pred->ndim >= 0 && tgt->ndim >= 0 && tgt->ndim != std::max(pred->ndim - 1, 0)) {
    return OpError(op, absl::StrCat("targets must have rank ", pred->ndim - 1, ", got ", tgt->ndim));
  }
  if (call->args.size() > 2) {
    absl::StatusOr<TensorInfo> w = GetTensorInfo(ArgType(call, 2), op, "weights");
    if (!w.ok()) return w.status();
    if (w->ndim >= 0 && w->ndim != 1) return OpError(op, "weights must be 1-D");
    if (w->shape_known && pred->shape_known) {
      PrimExpr classes = pred->ndim == 1 ? pred->shape[0] : pred->shape[1];
      if (ProveNotEqual(w->shape[0], classes)) return OpError(op, "weights must have one entry per class");
    }
  }
  if (pred->shape_known && tgt->shape_known && pred->ndim >= 2) {
    for (int i = 0; i < tgt->ndim; ++i) {
      if (ProveNotEqual(tgt->shape[i], pred->shape[i == 0 ? 0 : i + 1])) {
        return OpError(op, "targets shape " + ShapeToString(tgt->shape) + " does not match predictions " +
                               ShapeToString(pred->shape));
      }
    }
  }
  if (reduction != "none") return MakeTensorType(std::vector<PrimExpr>{}, pred->dtype);
  TensorInfo out = *tgt;
  out.dtype = pred->dtype;
  return MakeTensorType(out);
}

absl::StatusOr<Type> InferCrossEntropyWithLogits(const ir::relax::Call& call) {
  const std::string op = "nn.cross_entropy_with_logits";
  absl::StatusOr<TensorInfo> pred = GetTensorInfo(ArgType(call, 0), op, "predictions");
  if (!pred.ok()) return pred.status();
  absl::StatusOr<TensorInfo> labels = GetTensorInfo(ArgType(call, 1), op, "labels");
  if (!labels.ok()) return labels.status();
  absl::StatusOr<DataType> dtype = CommonDType(op, {*pred, *labels});
  if (!dtype.ok()) return dtype.status();
  if (pred->ndim >= 0 && labels->ndim >= 0 && pred->ndim != labels->ndim) {
    return OpError(op, "predictions and labels must have the same rank");
  }
  if (pred->shape_known && labels->shape_known) {
    for (size_t i = 0; i < pred->shape.size(); ++i) {
      if (ProveNotEqual(pred->shape[i], labels->shape[i])) {
        return OpError(op, "predictions and labels must have the same shape: " + ShapeToString(pred->shape) + " vs " +
                               ShapeToString(labels->shape));
      }
    }
  }
  return MakeTensorType(std::vector<PrimExpr>{}, *dtype);
}

absl::StatusOr<Type> InferPixelShuffle(const ir::relax::Call& call) {
  const std::string op = "nn.pixel_shuffle";
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
  if (!x.ok()) return x.status();
  int64_t r = IntAttr(call, "upscale_factor").value_or(1);
  if (r <= 0) return OpError(op, absl::StrCat("upscale_factor must be positive, got ", r));
  if (x->ndim >= 0 && x->ndim < 3) return OpError(op, absl::StrCat("expects rank >= 3 (..., C, H, W), got ", x->ndim));
  if (!x->shape_known) return MakeTensorType(*x);
  int c = x->ndim - 3;
  if (auto cc = AsConst(x->shape[c]); cc && *cc % (r * r) != 0) {
    return OpError(op, absl::StrCat("channels (", *cc, ") must be divisible by upscale_factor^2 (", r * r, ")"));
  }
  x->shape[c] = FloorDivDim(x->shape[c], Dim(r * r));
  x->shape[c + 1] = MulDim(x->shape[c + 1], Dim(r));
  x->shape[c + 2] = MulDim(x->shape[c + 2], Dim(r));
  return MakeTensorType(*x);
}

absl::StatusOr<Type> InferBatchFlatten(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "nn.batch_flatten", "data");
  if (!x.ok()) return x.status();
  if (x->ndim >= 0 && x->ndim < 2) {
    return OpError("nn.batch_flatten", absl::StrCat("expects rank >= 2, got ", x->ndim));
  }
  if (!x->shape_known) return MakeTensorType(x->dtype, 2);
  return MakeTensorType({x->shape[0], Product(std::vector<PrimExpr>(x->shape.begin() + 1, x->shape.end()))}, x->dtype);
}

// image.resize2d / resize3d: the spatial dims become `size` (1 entry means all equal).
InferFn ResizeInfer(const std::string& op, int s) {
  return [op, s](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
    if (!x.ok()) return x.status();
    DataType dtype = DTypeAttr(call, "out_dtype");
    if (dtype.is_void()) dtype = x->dtype;
    // Any layout, packed ones (NCHW16c) included: only the primal spatial axes change.
    std::string canonical = std::string("NC") + SpatialLetters(s);
    std::string layout = StringAttr(call, "layout", canonical);
    absl::StatusOr<std::vector<LayoutAxis>> axes = ParseLayout(op, layout, canonical);
    if (!axes.ok()) return axes.status();
    int ndim = static_cast<int>(axes->size());
    if (x->ndim >= 0 && x->ndim != ndim) return OpError(op, absl::StrCat("expects rank-", ndim, " data"));
    std::vector<PrimExpr> size;
    int n = -1;
    if (!x->shape_known || !GetShapeValues(call->args[1], &size, &n)) return MakeTensorType(dtype, ndim);
    if (size.size() == 1) size.assign(s, size[0]);
    if (static_cast<int>(size.size()) != s) return OpError(op, absl::StrCat("size must have 1 or ", s, " entries"));
    std::vector<PrimExpr> shape = x->shape;
    for (int i = 0; i < s; ++i) {
      for (int j = 0; j < ndim; ++j) {
        if ((*axes)[j].factor == 0 && (*axes)[j].letter == canonical[2 + i]) shape[j] = size[i];
      }
    }
    return MakeTensorType(shape, dtype);
  };
}

// image.grid_sample: data NCHW (or NCDHW), grid (N, 2, H_out, W_out) (or (N, 3, D, H, W)).
absl::StatusOr<Type> InferGridSample(const ir::relax::Call& call) {
  const std::string op = "image.grid_sample";
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
  if (!x.ok()) return x.status();
  absl::StatusOr<TensorInfo> g = GetTensorInfo(ArgType(call, 1), op, "grid");
  if (!g.ok()) return g.status();
  std::string layout = StringAttr(call, "layout", "NCHW");
  int s = layout == "NCDHW" ? 3 : 2;
  absl::StatusOr<std::vector<int>> pos = LayoutPositions(op, layout, std::string("NC") + SpatialLetters(s));
  if (!pos.ok()) return pos.status();
  if (x->ndim >= 0 && x->ndim != 2 + s) return OpError(op, absl::StrCat("expects rank-", 2 + s, " data"));
  if (g->ndim >= 0 && g->ndim != 2 + s) return OpError(op, absl::StrCat("expects a rank-", 2 + s, " grid"));
  if (!x->shape_known || !g->shape_known) return MakeTensorType(x->dtype, 2 + s);
  std::vector<PrimExpr> shape = x->shape;
  for (int i = 0; i < s; ++i) shape[(*pos)[2 + i]] = g->shape[2 + i];
  return MakeTensorType(shape, x->dtype);
}

// image.affine_grid: theta (N, s, s + 1) and a target size of s dims give (N, s, *size).
absl::StatusOr<Type> InferAffineGrid(const ir::relax::Call& call) {
  const std::string op = "image.affine_grid";
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
  if (!x.ok()) return x.status();
  std::vector<PrimExpr> size;
  int s = -1;
  bool size_known = GetShapeValues(call->args[1], &size, &s);
  if (s != 2 && s != 3) return OpError(op, "size must be a shape of 2 or 3 dims");
  if (x->ndim >= 0 && x->ndim != 3) return OpError(op, absl::StrCat("expects 3-D data (N, ", s, ", ", s + 1, ")"));
  if (x->shape_known) {
    if (ProveNotEqual(x->shape[1], Dim(s)) || ProveNotEqual(x->shape[2], Dim(s + 1))) {
      return OpError(op, absl::StrCat("data must have shape (N, ", s, ", ", s + 1, "), got ", ShapeToString(x->shape)));
    }
  }
  if (!x->shape_known || !size_known) return MakeTensorType(x->dtype, s + 2);
  std::vector<PrimExpr> shape = {x->shape[0], Dim(s)};
  shape.insert(shape.end(), size.begin(), size.end());
  return MakeTensorType(shape, x->dtype);
}

void AddConv(std::vector<OpSchema>* ops, const std::string& name, int s, bool transpose) {
  std::string sp = SpatialLetters(s);
  std::vector<AttrSpec> attrs = {IntArrayAttrSpec("strides", std::vector<int64_t>(s, 1)),
                                 IntArrayAttrSpec("padding", std::vector<int64_t>(2 * s, 0))};
  if (transpose) attrs.push_back(IntArrayAttrSpec("output_padding", std::vector<int64_t>(s, 0)));
  attrs.push_back(IntArrayAttrSpec("dilation", std::vector<int64_t>(s, 1)));
  attrs.push_back(IntAttrSpec("groups", 1));
  attrs.push_back(StringAttrSpec("data_layout", "NC" + sp));
  attrs.push_back(StringAttrSpec("kernel_layout", (transpose ? "IO" : "OI") + sp));
  attrs.push_back(OptionalStringAttrSpec("out_layout"));
  attrs.push_back(DTypeAttrSpec("out_dtype", DataType::Void()));
  std::vector<std::string> per_dim = {"strides", "dilation"};
  if (transpose) per_dim.push_back("output_padding");
  OpSchema& op = AddOp(ops, name, {"data", "weight"}, attrs, ConvInfer(name, s, transpose));
  op.finalize_attrs = ExpandWindowAttrs(s, "data_layout", per_dim);
}

}  // namespace

void RegisterNNOps(std::vector<OpSchema>* ops) {
  for (int s = 1; s <= 3; ++s) {
    AddConv(ops, absl::StrCat("nn.conv", s, "d"), s, false);
    AddConv(ops, absl::StrCat("nn.conv", s, "d_transpose"), s, true);
    std::string layout = std::string("NC") + SpatialLetters(s);
    for (const std::string kind : {"max", "avg"}) {
      std::string name = absl::StrCat("nn.", kind, "_pool", s, "d");
      // TVM's attribute order (dilation before padding); avg_pool1d/3d count the padding by default.
      bool count_pad = kind == "avg" && s != 2;
      OpSchema& op = AddOp(ops, name, {"data"},
                           {IntArrayAttrSpec("pool_size", std::vector<int64_t>(s, 1)),
                            IntArrayAttrSpec("strides", std::vector<int64_t>(s, 1)),
                            IntArrayAttrSpec("dilation", std::vector<int64_t>(s, 1)),
                            IntArrayAttrSpec("padding", std::vector<int64_t>(2 * s, 0)),
                            BoolAttrSpec("ceil_mode", false), BoolAttrSpec("count_include_pad", count_pad),
                            StringAttrSpec("layout", layout), OptionalStringAttrSpec("out_layout")},
                           PoolInfer(name, s));
      op.finalize_attrs = ExpandWindowAttrs(s, "layout", {"pool_size", "strides", "dilation"});
    }
    std::string name = absl::StrCat("nn.adaptive_avg_pool", s, "d");
    OpSchema& op = AddOp(ops, name, {"data"},
                         {OptionalIntArrayAttrSpec("output_size"), StringAttrSpec("layout", layout),
                          OptionalStringAttrSpec("out_layout")},
                         AdaptivePoolInfer(name, s));
    op.finalize_attrs = ExpandWindowAttrs(s, "layout", {});
  }
  for (const char* name : {"nn.relu", "nn.silu", "nn.selu"}) AddOp(ops, name, {"data"}, {}, SameTypeInfer(name, false));
  AddOp(ops, "nn.relu6", {"data"}, {}, nullptr).expand = ExpandRelu6;
  for (const char* name : {"nn.gelu", "nn.gelu_tanh"}) AddOp(ops, name, {"data"}, {}, SameTypeInfer(name, true));
  AddOp(ops, "nn.leakyrelu", {"data"}, {FloatAttrSpec("alpha", 0.01)}, SameTypeInfer("nn.leakyrelu", false));
  AddOp(ops, "nn.softplus", {"data"}, {FloatAttrSpec("beta", 1.0), FloatAttrSpec("threshold", 20.0)},
        SameTypeInfer("nn.softplus", true));
  AddOp(ops, "nn.prelu", {"data", "alpha"}, {IntAttrSpec("axis", 1)}, SameTypeInfer("nn.prelu", false, "axis"));
  for (const char* name : {"nn.softmax", "nn.log_softmax"}) {
    AddOp(ops, name, {"data"}, {IntAttrSpec("axis", -1)}, SameTypeInfer(name, true, "axis"));
  }
  AddOp(ops, "nn.layer_norm", {"data", "gamma", "beta"},
        {RequiredIntArrayAttrSpec("axes"), FloatAttrSpec("epsilon", 1e-5), BoolAttrSpec("center", true),
         BoolAttrSpec("scale", true)},
        NormInfer("nn.layer_norm", {"gamma", "beta"}));
  AddOp(ops, "nn.rms_norm", {"data", "weight"}, {IntArrayAttrSpec("axes", {-1}), FloatAttrSpec("epsilon", 1e-5)},
        NormInfer("nn.rms_norm", {"weight"}));
  AddOp(ops, "nn.group_norm", {"data", "gamma", "beta"},
        {RequiredIntAttrSpec("num_groups"), RequiredIntAttrSpec("channel_axis"), RequiredIntArrayAttrSpec("axes"),
         FloatAttrSpec("epsilon", 1e-5), BoolAttrSpec("center", true), BoolAttrSpec("scale", true)},
        NormInfer("nn.group_norm", {}));
  AddOp(ops, "nn.batch_norm", {"data", "gamma", "beta", "moving_mean", "moving_var"},
        {IntAttrSpec("axis", 1), FloatAttrSpec("epsilon", 1e-5), BoolAttrSpec("center", true),
         BoolAttrSpec("scale", true), FloatAttrSpec("momentum", 0.1), BoolAttrSpec("training", true)},
        InferBatchNorm);
  AddOp(ops, "nn.dropout", {"data"}, {FloatAttrSpec("rate", 0.5)}, InferDropout);
  AddOp(ops, "nn.pad", {"data"},
        {RequiredIntArrayAttrSpec("pad_width"), FloatAttrSpec("pad_value", 0.0), StringAttrSpec("pad_mode", "constant")},
        InferPad);
  auto attention_attrs = [] {
    return std::vector<AttrSpec>{OptionalFloatAttrSpec("scale"), OptionalStringAttrSpec("causal_mask"),
                                 OptionalIntAttrSpec("window_size")};
  };
  AddOp(ops, "nn.attention", {"query", "key", "value"}, attention_attrs(), AttentionInfer("nn.attention"));
  AddOp(ops, "nn.attention_bias", {"query", "key", "value", "bias"}, attention_attrs(),
        AttentionInfer("nn.attention_bias"));
  for (const char* name : {"nn.attention", "nn.attention_bias"}) {
    OpSchema& f = AddOp(ops, name, {"query", "key", "value", "bias"}, attention_attrs(), nullptr);
    f.min_args = 3;
    f.expand = ExpandAttention;
  }
  // Arguments in the operator's order (TVM prints them so); TVM also types it with attention's rule.
  AddOp(ops, "nn.attention_var_len",
        {"queries", "keys", "values", "seqstart_q", "seqstart_k", "max_seqlen_q", "max_seqlen_k"}, attention_attrs(),
        AttentionInfer("nn.attention_var_len"));
  AddOp(ops, "nn.instance_norm", {"data", "gamma", "beta"},
        {RequiredIntAttrSpec("channel_axis"), RequiredIntArrayAttrSpec("axes"), FloatAttrSpec("epsilon", 1e-5),
         BoolAttrSpec("center", true), BoolAttrSpec("scale", true)},
        InferInstanceNorm);
  OpSchema& nll = AddOp(ops, "nn.nll_loss", {"predictions", "targets", "weights"},
                        {StringAttrSpec("reduction", "mean"), IntAttrSpec("ignore_index", -100)}, InferNllLoss);
  nll.min_args = 2;
  AddOp(ops, "nn.cross_entropy_with_logits", {"predictions", "labels"}, {}, InferCrossEntropyWithLogits);
  AddOp(ops, "nn.pixel_shuffle", {"data"}, {RequiredIntAttrSpec("upscale_factor")}, InferPixelShuffle);
  AddOp(ops, "nn.batch_flatten", {"data"}, {}, InferBatchFlatten);
  for (int s = 2; s <= 3; ++s) {
    AddOp(ops, absl::StrCat("image.resize", s, "d"), {"data", "size"},
          {FloatArrayAttrSpec("roi", std::vector<double>(2 * s, 0.0)), StringAttrSpec("layout", std::string("NC") + SpatialLetters(s)),
           StringAttrSpec("method", "linear"), StringAttrSpec("coordinate_transformation_mode", "half_pixel"),
           StringAttrSpec("rounding_method", s == 2 ? "round" : ""), FloatAttrSpec("cubic_alpha", -0.75),
           IntAttrSpec("cubic_exclude", 0), FloatAttrSpec("extrapolation_value", 0.0),
           DTypeAttrSpec("out_dtype", DataType::Void())},
          ResizeInfer(absl::StrCat("image.resize", s, "d"), s));
  }
  AddOp(ops, "image.grid_sample", {"data", "grid"},
        {StringAttrSpec("method", "bilinear"), StringAttrSpec("layout", "NCHW"), StringAttrSpec("padding_mode", "zeros"),
         BoolAttrSpec("align_corners", false)},
        InferGridSample);
  AddOp(ops, "image.affine_grid", {"data", "size"}, {BoolAttrSpec("align_corners", true)}, InferAffineGrid);
}

}  // namespace kiln::relax
