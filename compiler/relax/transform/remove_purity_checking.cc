// RemovePurityChecking: pure functions get the "relax.force_pure" attribute; call_pure_packed and
// call_inplace_packed become direct calls of their packed functions and invoke_pure_closure becomes
// invoke_closure.
//
// Why: lowering inserts impure operations (allocation kills, shape-heap writes, the VM's
// destination-passing kernel calls) into functions that stay pure as a whole. TVM resolves this
// the same way: purity was checked on the high-level program, so from here on the flag only says
// "trust the function", and the pure-call wrappers, which exist only to tell the checker that a
// packed call has no visible effect, are unwrapped into the calls the VM actually makes. For
// call_inplace_packed (as in TVM) the packed function itself writes its outputs into the arguments
// named by inplace_indices and returns them (the result aliases those arguments); the attribute
// only told the purity checker so, and is dropped with the wrapper.
#include "compiler/relax/transform/binding_rewriter.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

class RemovePurityRewriter : public BindingRewriter {
 public:
  using BindingRewriter::BindingRewriter;

 protected:
  absl::StatusOr<rx::Function> RewriteFunction(const rx::Function& func) override {
    absl::StatusOr<rx::Function> out = BindingRewriter::RewriteFunction(func);
    if (!out.ok() || !(*out)->is_pure) return out;
    rx::Function f = *out;
    f.CopyOnWrite()->attrs.Set(String("relax.force_pure"), IntImm(DataType::Bool(), 1));
    return f;
  }

  absl::StatusOr<Expr> RewriteValue(const Expr& value, BlockBuilder* bb) override {
    absl::StatusOr<Expr> out = BindingRewriter::RewriteValue(value, bb);
    if (!out.ok()) return out;
    const auto* call = out->as<rx::CallNode>();
    if (call == nullptr) return out;
    const bool pure_packed = IsOp(call->op, "relax.call_pure_packed");
    if (pure_packed || IsOp(call->op, "relax.call_inplace_packed")) {
      if (call->args.empty()) {
        return absl::InvalidArgumentError(pure_packed ? "R.call_pure_packed without a callee"
                                                      : "R.call_inplace_packed without a callee");
      }
      Array<Expr> args(call->args.begin() + 1, call->args.end());
      rx::Call direct(call->args[0], args, {}, call->ty_args, call->span);
      direct.CopyOnWrite()->ty = call->ty;
      return Expr(direct);
    }
    if (IsOp(call->op, "relax.invoke_pure_closure")) {
      rx::Call impure = Downcast<rx::Call>(*out);
      impure.CopyOnWrite()->op = Op("relax.invoke_closure");
      return Expr(impure);
    }
    return out;
  }
};

}  // namespace

absl::StatusOr<IRModule> RemovePurityChecking(const IRModule& module) {
  return RemovePurityRewriter(module).Run();
}

}  // namespace kiln::relax::transform
