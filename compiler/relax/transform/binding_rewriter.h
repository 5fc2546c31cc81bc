// The skeleton the VM-lowering passes share: rebuild every Relax function binding by binding, with
// a builder that lets one binding become several (call_tir -> alloc_tensor + kernel call) and a
// variable substitution applied to everything after a rewritten binding.
//
// Kiln's IR has no general Relax mutator; these passes only ever replace bindings in order, so
// this is all they need: a subclass overrides RewriteBinding (or RewriteValue) and calls Emit.
#ifndef KILN_COMPILER_RELAX_TRANSFORM_BINDING_REWRITER_H_
#define KILN_COMPILER_RELAX_TRANSFORM_BINDING_REWRITER_H_

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::relax::transform {

// Sets `expr->ty` from type inference when it is unset (every expression a pass creates must be
// typed). Returns the typed expression.
absl::StatusOr<ir::Expr> Typed(ir::Expr expr, const ir::IRModule& module);

// The bindings of the block being rebuilt.
class BlockBuilder {
 public:
  explicit BlockBuilder(ir::IRModule module) : module_(std::move(module)) {}

  // Binds `value` (typed first, see Typed) to a fresh Var called `name`; returns the Var.
  absl::StatusOr<ir::Var> Emit(ir::Expr value, const std::string& name);
  void EmitBinding(const ir::relax::Binding& binding) { bindings_.push_back(binding); }
  ir::Array<ir::relax::Binding> TakeBindings();
  const ir::IRModule& module() const { return module_; }
  // The module later Emits type against (after a pass added a function to it).
  void set_module(ir::IRModule module) { module_ = std::move(module); }

 private:
  ir::IRModule module_;
  std::vector<ir::relax::Binding> bindings_;
};

class BindingRewriter {
 public:
  explicit BindingRewriter(ir::IRModule module) : module_(std::move(module)) {}
  virtual ~BindingRewriter() = default;

  // Rewrites every Relax function of the module with RewriteFunction; other functions are kept.
  absl::StatusOr<ir::IRModule> Run();

 protected:
  // Default: the body through RewriteSeq, params and attributes kept.
  virtual absl::StatusOr<ir::relax::Function> RewriteFunction(const ir::relax::Function& func);
  // Rebuilds each block (RewriteBinding per binding) and the body (RewriteBody). A body that is a
  // call or an If is first bound to a var (through RewriteBinding, in a block at the end).
  absl::StatusOr<ir::Expr> RewriteSeq(const ir::relax::SeqExpr& seq);
  // Default: re-emits the binding with its value through RewriteValue and its var through Remap.
  virtual absl::Status RewriteBinding(const ir::relax::Binding& binding, BlockBuilder* bb);
  // Default: Remap, except that If branches go through RewriteSeq and nested functions through
  // RewriteFunction.
  virtual absl::StatusOr<ir::Expr> RewriteValue(const ir::Expr& value, BlockBuilder* bb);
  // The SeqExpr's result; bindings emitted here go into a block of their own at the end.
  virtual absl::StatusOr<ir::Expr> RewriteBody(const ir::Expr& body, BlockBuilder* bb) { return Remap(body); }
  // Whether a rewritten dataflow block stays one.
  virtual bool KeepDataflow() const { return true; }

  // `expr` with every substituted variable replaced, at any depth.
  ir::Expr Remap(const ir::Expr& expr) const;
  // Later uses of `from` become `to` (until Unsubstitute(from)).
  void Substitute(const ir::Var& from, const ir::Expr& to) { var_map_[from.get()] = to; }
  void Unsubstitute(const ir::Var& from) { var_map_.erase(from.get()); }

  // The function being rewritten (for error messages).
  const std::string& current_function() const { return current_function_; }
  // Whether the block being rebuilt is a dataflow block (its new locals are DataflowVars).
  bool in_dataflow_block() const { return in_dataflow_block_; }

  ir::IRModule module_;

 private:
  std::string current_function_;
  bool in_dataflow_block_ = false;
  std::unordered_map<const ir::Object*, ir::Expr> var_map_;
};

// `call` with `leaf` applied to each argument, and through tuple arguments (at any depth) to each of
// their fields instead; a part is rebuilt only where `leaf` changed something.
using LeafRewrite = std::function<absl::StatusOr<ir::Expr>(const ir::Expr&)>;
absl::StatusOr<ir::Expr> RewriteCallArgs(const ir::relax::Call& call, const LeafRewrite& leaf);

// `call` with `rewrite` applied to each argument (`tuple`: to each field), rebuilt only where
// `rewrite` changed something.
absl::StatusOr<ir::Expr> MapCallArgs(const ir::relax::Call& call, const LeafRewrite& rewrite);
absl::StatusOr<ir::Expr> MapTupleFields(const ir::relax::Tuple& tuple, const LeafRewrite& rewrite);

// The PrimFunc `callee` names in `module` (a GlobalVar of a PrimFunc), else null.
const ir::PrimFuncNode* CalledPrimFunc(const ir::Expr& callee, const ir::IRModule& module);

// Whether `expr` is the operator `name` ("relax.call_tir").
bool IsOp(const ir::Expr& expr, const char* name);

// Typed leaves for the arguments passes build.
ir::relax::PrimValue MakeInt64(int64_t value);
ir::relax::StringImm MakeString(std::string value);
ir::relax::DataTypeImm MakeDType(ir::DataType dtype);
ir::relax::ShapeExpr MakeShape(ir::Array<ir::PrimExpr> values);
// A call of the packed function `name` (an ExternFunc) returning `ret`.
ir::relax::Call MakePackedCall(const std::string& name, ir::Array<ir::Expr> args, ir::Type ret);

}  // namespace kiln::relax::transform

#endif  // KILN_COMPILER_RELAX_TRANSFORM_BINDING_REWRITER_H_
