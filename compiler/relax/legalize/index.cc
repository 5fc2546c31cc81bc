// Indexing: R.take (modes fast / clip / wrap; axis None takes from the flattened tensor),
// R.strided_slice (constant axes, begins and strides; begins normalized and clamped as numpy
// does) and R.where (numpy broadcasting of condition and both branches).
#include <string>
#include <vector>

#include "compiler/relax/legalize/table.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"

namespace kiln::relax::legalize {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

absl::StatusOr<Expr> LegalizeTake(const rx::Call& call, LegalizeContext* ctx) {
  absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
  if (!out_tt.ok()) return out_tt.status();
  FuncBuilder b("take");
  absl::StatusOr<Tensor> x = b.Input(call->args[0]);
  if (!x.ok()) return x.status();
  absl::StatusOr<Tensor> indices = b.Input(call->args[1]);
  if (!indices.ok()) return indices.status();
  absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(call->ty);
  if (!shape.ok()) return shape.status();
  std::optional<int64_t> axis_attr = IntAttr(call, "axis");
  std::string mode = StringAttr(call, "mode", "fast");
  std::vector<PrimExpr> xshape = x->shape().ToVector();
  int axis = 0;
  if (axis_attr) {
    absl::StatusOr<int> a = NormalizeAxis("take", *axis_attr, x->ndim());
    if (!a.ok()) return a.status();
    axis = *a;
  }
  PrimExpr n = axis_attr ? xshape[axis] : NumElements(xshape);
  int k = indices->ndim();
  Tensor out = b.Compute("T_take", *shape, x->dtype(), [&](const Indices& i) {
    Indices ii(i.begin() + axis, i.begin() + axis + k);
    PrimExpr j = CastTo(DataType::Int(64), (*indices)(ii));
    if (mode == "clip") {
      j = Min(Max(j, Int64(0)), Sub(n, Int64(1)));
    } else if (mode == "wrap") {
      j = FloorMod(j, n);
    }
    if (!axis_attr) return (*x)(Unravel(j, xshape));
    Indices idx(i.begin(), i.begin() + axis);
    idx.push_back(j);
    idx.insert(idx.end(), i.begin() + axis + k, i.end());
    return (*x)(idx);
  });
  return ctx->Emit(b, {out}, OpPatternKind::kInjective, call);
}

// The integer values of a tuple of prim values or of a shape; nullopt when not all constant.
std::optional<std::vector<int64_t>> ConstValues(const Expr& e) {
  std::vector<PrimExpr> values;
  if (const auto* t = e.as<rx::TupleNode>()) {
    for (const Expr& f : t->fields) {
      const auto* p = f.as<rx::PrimValueNode>();
      if (p == nullptr) return std::nullopt;
      values.push_back(p->value);
    }
  } else {
    int ndim = -1;
    if (!GetShapeValues(e, &values, &ndim)) return std::nullopt;
  }
  std::vector<int64_t> out;
  for (const PrimExpr& v : values) {
    std::optional<int64_t> c = AsConst(v);
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

// x[begin : end : stride] along each listed axis; the output extents are the call's type.
absl::StatusOr<Expr> LegalizeStridedSlice(const rx::Call& call, LegalizeContext* ctx) {
  absl::StatusOr<SingleInputKernel> kernel = StartSingleInputKernel(call, "strided_slice");
  if (!kernel.ok()) return kernel.status();
  FuncBuilder& b = kernel->b;
  const Tensor& x = kernel->x;
  const std::vector<PrimExpr>& shape = kernel->shape;
  auto axes = ConstValues(call->args[1]);
  auto begin = ConstValues(call->args[2]);
  std::optional<std::vector<int64_t>> strides;
  if (call->args.size() > 4) strides = ConstValues(call->args[4]);
  if (!axes || !begin || (call->args.size() > 4 && !strides)) {
    return absl::InvalidArgumentError("needs constant axes, begins and strides");
  }
  absl::StatusOr<std::vector<int>> norm = NormalizeAxes("strided_slice", *axes, x.ndim());
  if (!norm.ok()) return norm.status();
  std::vector<PrimExpr> starts(x.ndim(), Int64(0)), steps(x.ndim(), Int64(1));
  for (size_t j = 0; j < norm->size(); ++j) {
    int a = (*norm)[j];
    int64_t s = strides ? (*strides)[j] : 1;
    int64_t bg = (*begin)[j];
    PrimExpr dim = x.shape()[a];
    std::optional<int64_t> n = AsConst(dim);
    if (n) {
      if (bg < 0) bg += *n;
      bg = s > 0 ? std::max<int64_t>(0, std::min(bg, *n)) : std::max<int64_t>(-1, std::min(bg, *n - 1));
      starts[a] = Int64(bg);
    } else if (bg >= 0 && s > 0) {
      starts[a] = Min(Int64(bg), dim);
    } else if (bg < 0) {
      starts[a] = Max(Add(dim, Int64(bg)), Int64(s > 0 ? 0 : -1));
    } else {
      starts[a] = Min(Int64(bg), Sub(dim, Int64(1)));
    }
    steps[a] = Int64(s);
  }
  Tensor out = b.Compute("T_strided_slice", shape, x.dtype(), [&](const Indices& i) {
    Indices idx;
    for (int d = 0; d < x.ndim(); ++d) idx.push_back(AddDim(starts[d], MulDim(i[d], steps[d])));
    return x(idx);
  });
  return ctx->Emit(b, {out}, OpPatternKind::kInjective, call);
}

absl::StatusOr<Expr> LegalizeWhere(const rx::Call& call, LegalizeContext* ctx) {
  absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
  if (!out_tt.ok()) return out_tt.status();
  DataType dt = (*out_tt)->dtype;
  FuncBuilder b("where");
  absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(call->ty);
  if (!shape.ok()) return shape.status();
  std::vector<std::optional<Tensor>> tensors;
  std::vector<PrimExpr> scalars;
  for (size_t k = 0; k < 3; ++k) {
    if (FuncBuilder::IsScalar(call->args[k])) {
      absl::StatusOr<PrimExpr> s = b.Scalar(call->args[k]);
      if (!s.ok()) return s.status();
      tensors.push_back(std::nullopt);
      scalars.push_back(*s);
    } else {
      absl::StatusOr<Tensor> t = b.Input(call->args[k]);
      if (!t.ok()) return t.status();
      tensors.push_back(*t);
      scalars.push_back(PrimExpr());
    }
  }
  Tensor out = b.Compute("T_where", *shape, dt, [&](const Indices& i) {
    auto value = [&](size_t k) {
      return tensors[k] ? (*tensors[k])(BroadcastIndices(*tensors[k], *shape, i)) : scalars[k];
    };
    PrimExpr c = value(0);
    if (!c.dtype().is_bool()) c = NE(c, Const(c.dtype(), 0));
    return PrimExpr(Select(c, CastTo(dt, value(1)), CastTo(dt, value(2))));
  });
  return ctx->Emit(b, {out}, OpPatternKind::kBroadcast, call);
}

}  // namespace

void RegisterIndexOps(LegalizeTable* t) {
  auto& table = *t;
  table["relax.take"] = LegalizeTake;
  table["relax.strided_slice"] = LegalizeStridedSlice;
  table["relax.where"] = LegalizeWhere;
}

}  // namespace kiln::relax::legalize
