// Linear algebra: R.matmul (numpy semantics: 1-D operands get a unit dim that is dropped again,
// batch dims broadcast, the reduction dims must agree) and R.outer.
#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

absl::StatusOr<Type> InferMatmul(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> a = GetTensorInfo(ArgType(call, 0), "matmul", "x1");
  if (!a.ok()) return a.status();
  absl::StatusOr<TensorInfo> b = GetTensorInfo(ArgType(call, 1), "matmul", "x2");
  if (!b.ok()) return b.status();
  DataType dtype = DTypeAttr(call, "out_dtype");
  if (dtype.is_void()) {
    if (!a->dtype.is_void() && !b->dtype.is_void() && a->dtype != b->dtype) {
      return OpError("matmul", "dtype mismatch: " + a->dtype.ToString() + " vs " + b->dtype.ToString() +
                                   " (set out_dtype to mix dtypes)");
    }
    dtype = a->dtype.is_void() ? b->dtype : a->dtype;
  }
  if (a->ndim == 0 || b->ndim == 0) return OpError("matmul", "operands must have rank >= 1");
  if (a->ndim < 0 || b->ndim < 0) return MakeTensorType(dtype, -1);
  bool a_vec = a->ndim == 1, b_vec = b->ndim == 1;
  int a_batch = a_vec ? 0 : a->ndim - 2, b_batch = b_vec ? 0 : b->ndim - 2;
  int out_ndim = std::max(a_batch, b_batch) + (a_vec ? 0 : 1) + (b_vec ? 0 : 1);
  if (!a->shape_known || !b->shape_known) return MakeTensorType(dtype, out_ndim);
  PrimExpr ka = a->shape[a->ndim - 1];
  PrimExpr kb = b_vec ? b->shape[0] : b->shape[b->ndim - 2];
  if (ProveNotEqual(ka, kb)) {
    return OpError("matmul", absl::StrCat("reduction dimensions differ: ", ShapeToString(a->shape), " @ ",
                                          ShapeToString(b->shape), " (", DimToString(ka), " vs ", DimToString(kb), ")"));
  }
  std::vector<PrimExpr> ba(a->shape.begin(), a->shape.begin() + a_batch);
  std::vector<PrimExpr> bb(b->shape.begin(), b->shape.begin() + b_batch);
  bool unknown = false;
  absl::StatusOr<std::vector<PrimExpr>> batch = BroadcastShapes("matmul", ba, bb, &unknown);
  if (!batch.ok()) return batch.status();
  if (unknown) return MakeTensorType(dtype, out_ndim);
  std::vector<PrimExpr> shape = *batch;
  if (!a_vec) shape.push_back(a->shape[a->ndim - 2]);
  if (!b_vec) shape.push_back(b->shape[b->ndim - 1]);
  return MakeTensorType(shape, dtype);
}

absl::StatusOr<Type> InferOuter(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> a = GetTensorInfo(ArgType(call, 0), "outer", "x1");
  if (!a.ok()) return a.status();
  absl::StatusOr<TensorInfo> b = GetTensorInfo(ArgType(call, 1), "outer", "x2");
  if (!b.ok()) return b.status();
  if ((a->ndim >= 0 && a->ndim != 1) || (b->ndim >= 0 && b->ndim != 1)) {
    return OpError("outer", "operands must be 1-D");
  }
  DataType dtype = a->dtype.is_void() ? b->dtype : a->dtype;
  if (!a->shape_known || !b->shape_known) return MakeTensorType(dtype, 2);
  return MakeTensorType({a->shape[0], b->shape[0]}, dtype);
}

}  // namespace

void RegisterLinalgOps(std::vector<OpSchema>* ops) {
  AddOp(ops, "matmul", {"x1", "x2"}, {DTypeAttrSpec("out_dtype", DataType::Void())}, InferMatmul);
  AddOp(ops, "outer", {"x1", "x2"}, {}, InferOuter);
}

}  // namespace kiln::relax
