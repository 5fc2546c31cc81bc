// Normalize: a call nested in another call's arguments is bound to a variable of its own just
// before the binding that uses it (A-normal form), so every later pass sees one operator call per
// binding: `z = R.nn.relu(R.add(lv, b))` becomes `lv_1 = R.add(lv, b); z = R.nn.relu(lv_1)`.
//
// Why: TVM's parser emits bindings through a BlockBuilder that normalizes as it goes, so TVM's
// passes never meet nested calls; kiln's parser keeps the text's nesting (it prints back as
// written), and this pass gives the pipeline the form TVM's passes assume. Calls inside tuple
// arguments (`R.concat((R.add(a, b), c))`) are bound as well; If branches and nested functions are
// normalized through the rewriter. A nested call inside a dataflow block gets a DataflowVar.
#include "compiler/relax/transform/binding_rewriter.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

class Normalizer : public BindingRewriter {
 public:
  using BindingRewriter::BindingRewriter;

 protected:
  absl::StatusOr<Expr> RewriteValue(const Expr& value, BlockBuilder* bb) override {
    absl::StatusOr<Expr> out = BindingRewriter::RewriteValue(value, bb);
    if (!out.ok()) return out;
    if (out->as<rx::CallNode>() == nullptr) return out;
    return RewriteCallArgs(Downcast<rx::Call>(*out), [&](const Expr& arg) { return BindNested(arg, bb); });
  }

 private:
  // A call argument (or a field of a tuple argument) that is a call, bound to a variable first.
  absl::StatusOr<Expr> BindNested(const Expr& arg, BlockBuilder* bb) {
    if (arg.as<rx::CallNode>() == nullptr) return arg;
    // The nested call is normalized itself (its own nested calls first), then bound.
    absl::StatusOr<Expr> inner = RewriteValue(arg, bb);
    if (!inner.ok()) return inner;
    absl::StatusOr<Expr> typed = Typed(*inner, bb->module());
    if (!typed.ok()) return typed;
    Var var = in_dataflow_block() ? Var(rx::DataflowVar("lv", (*typed)->ty)) : Var("lv", (*typed)->ty);
    bb->EmitBinding(rx::VarBinding(var, *typed));
    return Expr(var);
  }
};

}  // namespace

absl::StatusOr<IRModule> Normalize(const IRModule& module) { return Normalizer(module).Run(); }

}  // namespace kiln::relax::transform
