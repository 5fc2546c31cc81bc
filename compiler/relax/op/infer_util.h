// Shared helpers for Relax type inference: reading argument types and attributes, shape arithmetic
// on int64 PrimExprs with light constant folding, provable (in)equality of dimensions, numpy
// broadcasting on symbolic shapes, axis normalization, and short type spellings for messages.
//
// "Provably equal" here means structurally equal after folding; two dims that are not provably
// equal are only an error when both are constants (symbolic dims are checked at run time).
#ifndef KILN_COMPILER_RELAX_OP_INFER_UTIL_H_
#define KILN_COMPILER_RELAX_OP_INFER_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::relax {

// ---- dimensions ----

// An int64 IntImm: the dtype of every Relax shape dimension.
ir::PrimExpr Dim(int64_t v);
// The value of a constant dim (IntImm of any integer dtype), if it is one.
std::optional<int64_t> AsConst(const ir::PrimExpr& e);
// Folds constant subexpressions and simple identities (x*1, x+0, (x*6)//3 -> x*2, ...).
ir::PrimExpr Simplify(const ir::PrimExpr& e);
bool ProveEqual(const ir::PrimExpr& a, const ir::PrimExpr& b);
// True only when both are constants and differ.
bool ProveNotEqual(const ir::PrimExpr& a, const ir::PrimExpr& b);
// Folded arithmetic on dims (int64).
ir::PrimExpr AddDim(const ir::PrimExpr& a, const ir::PrimExpr& b);
ir::PrimExpr SubDim(const ir::PrimExpr& a, const ir::PrimExpr& b);
ir::PrimExpr MulDim(const ir::PrimExpr& a, const ir::PrimExpr& b);
ir::PrimExpr FloorDivDim(const ir::PrimExpr& a, const ir::PrimExpr& b);
ir::PrimExpr Product(const std::vector<ir::PrimExpr>& dims);
// Replaces variables by expressions (by identity), then folds.
ir::PrimExpr Substitute(const ir::PrimExpr& e,
                        const std::unordered_map<const ir::VarNode*, ir::PrimExpr>& vmap);
ir::Type SubstituteType(const ir::Type& t,
                        const std::unordered_map<const ir::VarNode*, ir::PrimExpr>& vmap);
// Every Var (by identity, in first-seen order) occurring in `e`.
void CollectVars(const ir::PrimExpr& e, std::vector<ir::Var>* out);
// Every Var in the shapes/values of a type.
void CollectTypeVars(const ir::Type& t, std::vector<ir::Var>* out);

// ---- types ----

// A tensor type seen through its parts; shape is empty when unknown.
struct TensorInfo {
  ir::DataType dtype = ir::DataType::Void();
  int ndim = -1;
  bool shape_known = false;
  std::vector<ir::PrimExpr> shape;
};
// The TensorInfo of a TensorType; a PrimType counts as a 0-d tensor when `allow_prim`.
absl::StatusOr<TensorInfo> GetTensorInfo(const ir::Type& t, const std::string& op,
                                         const std::string& arg, bool allow_prim = false);
ir::Type MakeTensorType(const TensorInfo& info);
ir::Type MakeTensorType(std::vector<ir::PrimExpr> shape, ir::DataType dtype);
ir::Type MakeTensorType(ir::DataType dtype, int ndim);
// The values of a shape: from a ShapeExpr, or from the type of a shape-typed expression.
// Returns false when the values are unknown; *ndim is then the known rank or -1.
bool GetShapeValues(const ir::Expr& e, std::vector<ir::PrimExpr>* values, int* ndim);
// The type R.Tuple() that impure effect ops return.
ir::Type VoidType();

// ---- call arguments and attributes ----

// The type of a call argument (its `ty`, or derived for leaf expressions).
ir::Type ArgType(const ir::relax::Call& call, size_t i);
std::optional<int64_t> IntAttr(const ir::relax::Call& call, const std::string& name);
std::optional<std::vector<int64_t>> IntArrayAttr(const ir::relax::Call& call, const std::string& name);
std::optional<double> FloatAttr(const ir::relax::Call& call, const std::string& name);
bool BoolAttr(const ir::relax::Call& call, const std::string& name, bool dflt);
std::string StringAttr(const ir::relax::Call& call, const std::string& name, const std::string& dflt);
ir::DataType DTypeAttr(const ir::relax::Call& call, const std::string& name);

// The value of a PrimExpr argument: a PrimValue's value, or the value of a PrimType-typed
// expression; null when unknown or not a prim value.
ir::PrimExpr PrimArgValue(const ir::relax::Call& call, size_t i);
// The tensors of a tuple-typed argument (R.concat, R.stack, R.einsum, ...). Returns nullopt when
// the argument's type is unknown (AnyType or untyped); an error for a non-tuple or non-tensor
// field.
absl::StatusOr<std::optional<std::vector<TensorInfo>>> GetTupleTensorInfos(const ir::relax::Call& call, size_t i,
                                                                          const std::string& op,
                                                                          const std::string& arg);
// The common dtype of several tensors (void when none is known); an error when two known ones
// differ.
absl::StatusOr<ir::DataType> CommonDType(const std::string& op, const std::vector<TensorInfo>& ins);

// ---- axes and broadcasting ----

// Maps axis in [-ndim, ndim) to [0, ndim).
absl::StatusOr<int> NormalizeAxis(const std::string& op, int64_t axis, int ndim);
absl::StatusOr<std::vector<int>> NormalizeAxes(const std::string& op, const std::vector<int64_t>& axes,
                                               int ndim);
// Numpy broadcasting of two known shapes. *unknown is set when some symbolic pair could not be
// resolved (the result rank is then right but the shape is unknown).
absl::StatusOr<std::vector<ir::PrimExpr>> BroadcastShapes(const std::string& op,
                                                          const std::vector<ir::PrimExpr>& a,
                                                          const std::vector<ir::PrimExpr>& b,
                                                          bool* unknown);
// Broadcasts tensor infos (rank/shape only; dtype left void).
absl::StatusOr<TensorInfo> BroadcastInfos(const std::string& op, const TensorInfo& a, const TensorInfo& b);

// ---- spelling for messages ----
std::string DimToString(const ir::PrimExpr& e);
std::string ShapeToString(const std::vector<ir::PrimExpr>& shape);
std::string TypeToString(const ir::Type& t);

// INVALID_ARGUMENT "R.<op>: <msg>".
absl::Status OpError(const std::string& op, const std::string& msg);

}  // namespace kiln::relax

#endif  // KILN_COMPILER_RELAX_OP_INFER_UTIL_H_
