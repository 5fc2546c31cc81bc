// The TIR intrinsic registry: every builtin and math op a TIR Call may name (T.exp, T.if_then_else,
// T.call_extern, T.tvm_storage_sync, ...), with its TVMScript spelling, arity and how its result
// dtype follows from its arguments. Used by the parser, printer, verifier, interpreter and codegen.
#ifndef KILN_COMPILER_TIR_OP_OP_H_
#define KILN_COMPILER_TIR_OP_OP_H_

#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace kiln::tir {

enum class CallEffect { kPure, kReadState, kUpdateState, kOpaque, kControlJump };

struct IntrinsicInfo {
  std::string name;         // IR name: "tirx.exp"
  std::string script_name;  // "exp" (spelled T.exp)
  int min_args = 0;
  int max_args = 0;         // -1: variadic
  enum class DTypeRule {
    kSameAsFirstArg,   // math ops: result dtype = args[0].dtype
    kBool,             // predicates (isnan, ...)
    kExplicit,         // the dtype is given in the script (T.call_extern("float32", ...))
    kSecondArg,        // if_then_else: dtype of the true branch
    kInt32,
    kHandle,
    kVoid,
  } dtype_rule = DTypeRule::kSameAsFirstArg;
  CallEffect effect = CallEffect::kPure;
  bool float_only = false;  // exp, log, sqrt, ... require a floating dtype
};

class IntrinsicRegistry {
 public:
  static const IntrinsicRegistry& Global();
  const IntrinsicInfo* FindByName(const std::string& name) const;
  const IntrinsicInfo* FindByScriptName(const std::string& script) const;
  const std::vector<IntrinsicInfo>& all() const { return ops_; }

 private:
  IntrinsicRegistry();
  std::vector<IntrinsicInfo> ops_;
};

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_OP_OP_H_
