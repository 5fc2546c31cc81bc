// Neural-network operators (R.nn.*) and R.image.resize2d: convolutions and pooling in any
// N/C/spatial layout, activations, softmax, normalizations, dropout, pad and attention. Spatial
// output sizes follow the usual formula and are built as folded PrimExprs for symbolic inputs.
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

// Reorders dims given in canonical order into `layout`.
absl::StatusOr<std::vector<PrimExpr>> ToLayout(const std::string& op, const std::vector<PrimExpr>& canon_dims,
                                               const std::string& canonical, const std::string& layout) {
  absl::StatusOr<std::vector<int>> pos = LayoutPositions(op, layout, canonical);
  if (!pos.ok()) return pos.status();
  std::vector<PrimExpr> out(canon_dims.size());
  for (size_t i = 0; i < canon_dims.size(); ++i) out[(*pos)[i]] = canon_dims[i];
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
      int64_t pads = At(padding, i, 0) + At(padding, s + i, 0);
      PrimExpr eff_k = AddDim(MulDim(SubDim(k, Dim(1)), Dim(dl)), Dim(1));
      if (transpose) {
        PrimExpr o = AddDim(MulDim(SubDim(in, Dim(1)), Dim(st)), eff_k);
        out.push_back(AddDim(o, Dim(At(out_pad, i, 0) - pads)));
      } else {
        PrimExpr span = SubDim(AddDim(in, Dim(pads)), eff_k);
        if (auto cs = AsConst(Simplify(span)); cs && *cs < 0) {
          return OpError(op, absl::StrCat("the kernel (", DimToString(eff_k), " with dilation) is larger than the padded input (",
                                          DimToString(AddDim(in, Dim(pads))), ")"));
        }
        out.push_back(AddDim(FloorDivDim(span, Dim(st)), Dim(1)));
      }
    }
    absl::StatusOr<std::vector<PrimExpr>> shape = ToLayout(op, out, "NC" + sp, out_layout);
    if (!shape.ok()) return shape.status();
    return MakeTensorType(*shape, dtype);
  };
}

InferFn PoolInfer(const std::string& op, int s) {
  return [op, s](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
    if (!x.ok()) return x.status();
    int ndim = 2 + s;
    if (x->ndim >= 0 && x->ndim != ndim) return OpError(op, absl::StrCat("expects data of rank ", ndim, ", got ", x->ndim));
    std::string canonical = std::string("NC") + SpatialLetters(s);
    absl::StatusOr<std::vector<int>> pos = LayoutPositions(op, StringAttr(call, "layout", ""), canonical);
    if (!pos.ok()) return pos.status();
    std::string out_layout = StringAttr(call, "out_layout", StringAttr(call, "layout", ""));
    if (!x->shape_known) return MakeTensorType(x->dtype, ndim);
    std::vector<int64_t> pool = IntArrayAttr(call, "pool_size").value_or(std::vector<int64_t>{});
    std::vector<int64_t> strides = IntArrayAttr(call, "strides").value_or(std::vector<int64_t>{});
    std::vector<int64_t> padding = IntArrayAttr(call, "padding").value_or(std::vector<int64_t>{});
    std::vector<int64_t> dilation = IntArrayAttr(call, "dilation").value_or(std::vector<int64_t>{});
    bool ceil_mode = BoolAttr(call, "ceil_mode", false);
    std::vector<PrimExpr> out = {x->shape[(*pos)[0]], x->shape[(*pos)[1]]};
    for (int i = 0; i < s; ++i) {
      PrimExpr in = x->shape[(*pos)[2 + i]];
      int64_t k = At(pool, i, 1), st = At(strides, i, 1), dl = At(dilation, i, 1);
      int64_t extra = At(padding, i, 0) + At(padding, s + i, 0) - dl * (k - 1) - 1 + (ceil_mode ? st - 1 : 0);
      out.push_back(AddDim(FloorDivDim(AddDim(in, Dim(extra)), Dim(st)), Dim(1)));
    }
    absl::StatusOr<std::vector<PrimExpr>> shape = ToLayout(op, out, canonical, out_layout);
    if (!shape.ok()) return shape.status();
    return MakeTensorType(*shape, x->dtype);
  };
}

InferFn AdaptivePoolInfer(const std::string& op, int s) {
  return [op, s](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), op, "data");
    if (!x.ok()) return x.status();
    int ndim = 2 + s;
    if (x->ndim >= 0 && x->ndim != ndim) return OpError(op, absl::StrCat("expects data of rank ", ndim, ", got ", x->ndim));
    std::string canonical = std::string("NC") + SpatialLetters(s);
    absl::StatusOr<std::vector<int>> pos = LayoutPositions(op, StringAttr(call, "layout", ""), canonical);
    if (!pos.ok()) return pos.status();
    std::string out_layout = StringAttr(call, "out_layout", StringAttr(call, "layout", ""));
    if (!x->shape_known) return MakeTensorType(x->dtype, ndim);
    std::optional<std::vector<int64_t>> size = IntArrayAttr(call, "output_size");
    std::vector<PrimExpr> out = {x->shape[(*pos)[0]], x->shape[(*pos)[1]]};
    for (int i = 0; i < s; ++i) {
      if (!size || size->empty()) {
        out.push_back(x->shape[(*pos)[2 + i]]);
      } else {
        out.push_back(Dim(size->size() == 1 ? (*size)[0] : At(*size, i, 1)));
      }
    }
    absl::StatusOr<std::vector<PrimExpr>> shape = ToLayout(op, out, canonical, out_layout);
    if (!shape.ok()) return shape.status();
    return MakeTensorType(*shape, x->dtype);
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

absl::StatusOr<Type> InferAttention(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> q = GetTensorInfo(ArgType(call, 0), "nn.attention", "query");
  if (!q.ok()) return q.status();
  absl::StatusOr<TensorInfo> k = GetTensorInfo(ArgType(call, 1), "nn.attention", "key");
  if (!k.ok()) return k.status();
  absl::StatusOr<TensorInfo> v = GetTensorInfo(ArgType(call, 2), "nn.attention", "value");
  if (!v.ok()) return v.status();
  for (const TensorInfo* t : {&*q, &*k, &*v}) {
    if (t->ndim >= 0 && t->ndim != 4) return OpError("nn.attention", "expects rank-4 (batch, seq, heads, dim) inputs");
  }
  if (!q->shape_known || !k->shape_known || !v->shape_known) return MakeTensorType(q->dtype, 4);
  if (ProveNotEqual(q->shape[3], k->shape[3])) {
    return OpError("nn.attention", "query and key head dims differ: " + DimToString(q->shape[3]) + " vs " +
                                       DimToString(k->shape[3]));
  }
  if (ProveNotEqual(k->shape[1], v->shape[1])) {
    return OpError("nn.attention", "key and value sequence lengths differ");
  }
  return MakeTensorType({q->shape[0], q->shape[1], q->shape[2], v->shape[3]}, q->dtype);
}

absl::StatusOr<Type> InferResize2D(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "image.resize2d", "data");
  if (!x.ok()) return x.status();
  DataType dtype = DTypeAttr(call, "out_dtype");
  if (dtype.is_void()) dtype = x->dtype;
  if (x->ndim >= 0 && x->ndim != 4) return OpError("image.resize2d", "expects rank-4 data");
  absl::StatusOr<std::vector<int>> pos = LayoutPositions("image.resize2d", StringAttr(call, "layout", ""), "NCHW");
  if (!pos.ok()) return pos.status();
  std::vector<PrimExpr> size;
  int n = -1;
  if (!x->shape_known || !GetShapeValues(call->args[1], &size, &n)) return MakeTensorType(dtype, 4);
  if (size.size() == 1) size.push_back(size[0]);
  if (size.size() != 2) return OpError("image.resize2d", "size must have 1 or 2 entries");
  std::vector<PrimExpr> shape = x->shape;
  shape[(*pos)[2]] = size[0];
  shape[(*pos)[3]] = size[1];
  return MakeTensorType(shape, dtype);
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
    for (const char* kind : {"max", "avg"}) {
      std::string name = absl::StrCat("nn.", kind, "_pool", s, "d");
      OpSchema& op = AddOp(ops, name, {"data"},
                           {IntArrayAttrSpec("pool_size", std::vector<int64_t>(s, 1)),
                            IntArrayAttrSpec("strides", std::vector<int64_t>(s, 1)),
                            IntArrayAttrSpec("padding", std::vector<int64_t>(2 * s, 0)),
                            IntArrayAttrSpec("dilation", std::vector<int64_t>(s, 1)),
                            BoolAttrSpec("ceil_mode", false), BoolAttrSpec("count_include_pad", false),
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
  OpSchema& attn = AddOp(ops, "nn.attention", {"query", "key", "value", "bias"},
                         {OptionalFloatAttrSpec("scale"), OptionalStringAttrSpec("causal_mask"),
                          OptionalIntAttrSpec("window_size")},
                         InferAttention);
  attn.min_args = 3;
  AddOp(ops, "image.resize2d", {"data", "size"},
        {FloatArrayAttrSpec("roi", {0.0, 0.0, 0.0, 0.0}), StringAttrSpec("layout", "NCHW"),
         StringAttrSpec("method", "linear"), StringAttrSpec("coordinate_transformation_mode", "half_pixel"),
         StringAttrSpec("rounding_method", "round"), FloatAttrSpec("cubic_alpha", -0.5),
         IntAttrSpec("cubic_exclude", 0), FloatAttrSpec("extrapolation_value", 0.0),
         DTypeAttrSpec("out_dtype", DataType::Void())},
        InferResize2D);
}

}  // namespace kiln::relax
