// The Relax operator registry: for every operator in TVMScript's R.* namespace, its TVMScript
// spelling, positional arguments, keyword attributes (stored in relax::Call::attrs) and type
// inference. The parser, the printer, the verifier and legalization all read this one table.
#ifndef KILN_COMPILER_RELAX_OP_OP_H_
#define KILN_COMPILER_RELAX_OP_OP_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::relax {

// A keyword attribute of an operator, e.g. axis=[1] or keepdims=False.
struct AttrSpec {
  enum class Kind { kInt, kIntArray, kOptionalIntArray, kFloat, kBool, kString, kDType, kPrimExprArray, kAny };
  std::string name;
  Kind kind;
  ir::ObjectRef default_value;  // null: required, or "None" for optional kinds
};

struct OpSchema {
  std::string name;         // IR name: "relax.add", "relax.nn.conv2d"
  std::string script_name;  // TVMScript spelling without the "R." prefix: "add", "nn.conv2d"
  std::vector<std::string> args;  // positional (Expr) arguments, in order
  bool variadic = false;          // the last arg repeats (e.g. R.call_packed)
  std::vector<AttrSpec> attrs;    // keyword attributes, in printing order
  bool is_pure = true;
  // Infers the result type of a call whose argument types (ExprNode::ty) are known. Returns
  // INVALID_ARGUMENT with a readable message on ill-typed calls (shape or dtype mismatch).
  std::function<absl::StatusOr<ir::Type>(const ir::relax::Call&)> infer;
};

class OpRegistry {
 public:
  // Built once, immutable afterwards; safe from any thread.
  static const OpRegistry& Global();
  const OpSchema* FindByName(const std::string& name) const;          // "relax.add"
  const OpSchema* FindByScriptName(const std::string& script) const;  // "add", "nn.conv2d"
  const std::vector<OpSchema>& ops() const { return ops_; }

 private:
  OpRegistry();
  std::vector<OpSchema> ops_;
};

// Infers and sets `ty` for a Relax call (using the registry for Op callees, the callee's type for
// GlobalVar/Var callees, and ty_args for call_tir/call_dps_packed/call_packed).
absl::StatusOr<ir::Type> InferCallType(const ir::relax::Call& call, const ir::IRModule& module);

}  // namespace kiln::relax

#endif  // KILN_COMPILER_RELAX_OP_OP_H_
