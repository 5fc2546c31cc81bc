// Test helpers for Relax op tests: terse builders for typed variables and op calls.
#ifndef KILN_COMPILER_RELAX_OP_TEST_UTIL_H_
#define KILN_COMPILER_RELAX_OP_TEST_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"

namespace kiln::relax::testing {

using Attrs = std::vector<std::pair<std::string, ir::ObjectRef>>;

// A shape dim: an int literal (int64) or a symbolic PrimExpr.
struct D {
  D(int64_t v) : e(Dim(v)) {}  // NOLINT
  D(ir::PrimExpr x) : e(std::move(x)) {}  // NOLINT
  D(ir::Var x) : e(std::move(x)) {}  // NOLINT
  ir::PrimExpr e;
};

inline ir::Type Tensor(std::vector<D> shape, const std::string& dtype = "float32") {
  std::vector<ir::PrimExpr> dims;
  for (const D& d : shape) dims.push_back(d.e);
  return MakeTensorType(dims, ir::DataType::Parse(dtype).value());
}
inline ir::Type TensorNdim(int ndim, const std::string& dtype = "float32") {
  return MakeTensorType(ir::DataType::Parse(dtype).value(), ndim);
}
inline ir::Var V(const std::string& name, ir::Type ty) { return ir::Var(name, std::move(ty)); }
inline ir::Var SymVar(const std::string& name) { return ir::Var(name, ir::DataType::Int(64)); }
inline ir::IntImm I(int64_t v) { return ir::IntImm(ir::DataType::Int(64), v); }
inline ir::Array<ir::IntImm> Ints(std::vector<int64_t> v) {
  ir::Array<ir::IntImm> a;
  for (int64_t x : v) a.push_back(I(x));
  return a;
}
inline ir::relax::ShapeExpr Shape(std::vector<D> dims) {
  ir::Array<ir::PrimExpr> a;
  for (const D& d : dims) a.push_back(d.e);
  return ir::relax::ShapeExpr(a);
}

// Builds R.<op>(args, **attrs) through the parser's path and infers its type.
inline absl::StatusOr<ir::Type> Infer(const std::string& op, ir::Array<ir::Expr> args, Attrs attrs = {},
                                      ir::Array<ir::Type> ty_args = {}, ir::IRModule mod = ir::IRModule()) {
  absl::StatusOr<ir::relax::Call> c = MakeOpCall(op, args, attrs, ty_args, mod);
  if (!c.ok()) return c.status();
  return (*c)->ty;
}

inline std::string Str(const absl::StatusOr<ir::Type>& t) {
  return t.ok() ? TypeToString(*t) : "error: " + std::string(t.status().message());
}

}  // namespace kiln::relax::testing

#endif  // KILN_COMPILER_RELAX_OP_TEST_UTIL_H_
