// Indexing and selection: R.take, R.strided_slice (axes/begin/end/strides as tuple arguments of
// prim values, as TVM builds them), R.dynamic_strided_slice (bounds in int64 tensors, so only the
// rank is known) and R.where (three-way broadcasting).
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

absl::StatusOr<Type> InferTake(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "take", "x");
  if (!x.ok()) return x.status();
  absl::StatusOr<TensorInfo> idx = GetTensorInfo(ArgType(call, 1), "take", "indices", /*allow_prim=*/true);
  if (!idx.ok()) return idx.status();
  if (!idx->dtype.is_void() && !idx->dtype.is_integer()) {
    return OpError("take", "indices must have an integer dtype, got " + idx->dtype.ToString());
  }
  std::optional<int64_t> axis_attr = IntAttr(call, "axis");
  if (!axis_attr) {
    // Without an axis the input is taken as flattened.
    TensorInfo out = *idx;
    out.dtype = x->dtype;
    return MakeTensorType(out);
  }
  if (x->ndim < 0) return MakeTensorType(x->dtype, -1);
  absl::StatusOr<int> axis = NormalizeAxis("take", *axis_attr, x->ndim);
  if (!axis.ok()) return axis.status();
  if (idx->ndim < 0) return MakeTensorType(x->dtype, -1);
  int out_ndim = x->ndim - 1 + idx->ndim;
  if (!x->shape_known || !idx->shape_known) return MakeTensorType(x->dtype, out_ndim);
  std::vector<PrimExpr> shape(x->shape.begin(), x->shape.begin() + *axis);
  shape.insert(shape.end(), idx->shape.begin(), idx->shape.end());
  shape.insert(shape.end(), x->shape.begin() + *axis + 1, x->shape.end());
  return MakeTensorType(shape, x->dtype);
}

// Constant ints from a tuple of prim values, a shape expression or its type.
std::optional<std::vector<int64_t>> ConstInts(const Expr& e) {
  std::vector<int64_t> out;
  if (const auto* t = e.as<ir::relax::TupleNode>()) {
    for (const Expr& f : t->fields) {
      const auto* p = f.as<ir::relax::PrimValueNode>();
      std::optional<int64_t> c = p ? AsConst(p->value) : std::nullopt;
      if (!c) return std::nullopt;
      out.push_back(*c);
    }
    return out;
  }
  std::vector<PrimExpr> values;
  int ndim = -1;
  if (!GetShapeValues(e, &values, &ndim)) return std::nullopt;
  for (const PrimExpr& v : values) {
    auto c = AsConst(v);
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

// The length of x[begin:end:stride] along a dim of constant size n (Python slice semantics).
int64_t SliceLength(int64_t n, int64_t begin, int64_t end, int64_t stride) {
  auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); };
  if (begin < 0) begin += n;
  if (end < 0) end += n;
  if (stride > 0) {
    begin = clamp(begin, 0, n);
    end = clamp(end, 0, n);
    return end > begin ? (end - begin + stride - 1) / stride : 0;
  }
  begin = clamp(begin, -1, n - 1);
  end = clamp(end, -1, n - 1);
  return begin > end ? (begin - end - stride - 1) / (-stride) : 0;
}

absl::StatusOr<Type> InferStridedSlice(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "strided_slice", "x");
  if (!x.ok()) return x.status();
  auto axes = ConstInts(call->args[1]);
  auto begin = ConstInts(call->args[2]);
  auto end = ConstInts(call->args[3]);
  std::optional<std::vector<int64_t>> strides;
  if (call->args.size() > 4) strides = ConstInts(call->args[4]);
  if (axes && begin && end) {
    size_t n = axes->size();
    if (begin->size() != n || end->size() != n || (strides && strides->size() != n)) {
      return OpError("strided_slice", "axes, begin, end and strides must have the same length");
    }
    if (strides) {
      for (int64_t s : *strides) {
        if (s == 0) return OpError("strided_slice", "strides must be non-zero");
      }
    }
  }
  if (!x->shape_known) return MakeTensorType(*x);
  if (!axes || !begin || !end || (call->args.size() > 4 && !strides)) return MakeTensorType(x->dtype, x->ndim);
  absl::StatusOr<std::vector<int>> norm = NormalizeAxes("strided_slice", *axes, x->ndim);
  if (!norm.ok()) return norm.status();
  std::vector<PrimExpr> shape = x->shape;
  const int64_t kOpenEnd = std::numeric_limits<int32_t>::max();
  for (size_t i = 0; i < norm->size(); ++i) {
    int a = (*norm)[i];
    int64_t b = (*begin)[i], e = (*end)[i], s = strides ? (*strides)[i] : 1;
    if (auto n = AsConst(x->shape[a])) {
      shape[a] = Dim(SliceLength(*n, b, e, s));
    } else if (s == 1 && b >= 0 && e >= b) {
      // Symbolic extent: assume the slice is in bounds, as TVM does for the printed type.
      shape[a] = e >= kOpenEnd ? SubDim(x->shape[a], Dim(b)) : Dim(e - b);
    } else {
      return MakeTensorType(x->dtype, x->ndim);
    }
  }
  return MakeTensorType(shape, x->dtype);
}

absl::StatusOr<Type> InferWhere(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> c = GetTensorInfo(ArgType(call, 0), "where", "condition", true);
  if (!c.ok()) return c.status();
  absl::StatusOr<TensorInfo> a = GetTensorInfo(ArgType(call, 1), "where", "x1", true);
  if (!a.ok()) return a.status();
  absl::StatusOr<TensorInfo> b = GetTensorInfo(ArgType(call, 2), "where", "x2", true);
  if (!b.ok()) return b.status();
  if (!a->dtype.is_void() && !b->dtype.is_void() && a->dtype != b->dtype) {
    return OpError("where", "dtype mismatch: " + a->dtype.ToString() + " vs " + b->dtype.ToString());
  }
  absl::StatusOr<TensorInfo> ab = BroadcastInfos("where", *a, *b);
  if (!ab.ok()) return ab.status();
  absl::StatusOr<TensorInfo> out = BroadcastInfos("where", *c, *ab);
  if (!out.ok()) return out.status();
  out->dtype = a->dtype.is_void() ? b->dtype : a->dtype;
  return MakeTensorType(*out);
}

absl::StatusOr<Type> InferDynamicStridedSlice(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "dynamic_strided_slice", "x");
  if (!x.ok()) return x.status();
  const char* names[] = {"begin", "end", "strides"};
  for (size_t i = 1; i <= 3; ++i) {
    absl::StatusOr<TensorInfo> b = GetTensorInfo(ArgType(call, i), "dynamic_strided_slice", names[i - 1]);
    if (!b.ok()) return b.status();
    if (b->ndim >= 0 && b->ndim != 1) {
      return OpError("dynamic_strided_slice", absl::StrCat(names[i - 1], " must be a 1-D tensor"));
    }
    if (!b->dtype.is_void() && b->dtype != DataType::Int(64)) {
      return OpError("dynamic_strided_slice", absl::StrCat(names[i - 1], " must be int64, got ", b->dtype.ToString()));
    }
    if (x->ndim >= 0 && b->shape_known) {
      if (auto n = AsConst(b->shape[0]); n && *n != x->ndim) {
        return OpError("dynamic_strided_slice", absl::StrCat(names[i - 1], " has ", *n, " entries for a tensor of rank ",
                                                             x->ndim));
      }
    }
  }
  // The extents depend on the run-time values of the bounds.
  return MakeTensorType(x->dtype, x->ndim);
}

}  // namespace

void RegisterIndexOps(std::vector<OpSchema>* ops) {
  AddOp(ops, "take", {"x", "indices"}, {OptionalIntAttrSpec("axis"), StringAttrSpec("mode", "fast")}, InferTake);
  OpSchema& ss = AddOp(ops, "strided_slice", {"x", "axes", "begin", "end", "strides"},
                       {BoolAttrSpec("assume_inbound", false)}, InferStridedSlice);
  ss.min_args = 4;  // strides may be omitted (all ones)
  AddOp(ops, "where", {"condition", "x1", "x2"}, {}, InferWhere);
  AddOp(ops, "dynamic_strided_slice", {"x", "begin", "end", "strides"}, {}, InferDynamicStridedSlice);
}

}  // namespace kiln::relax
