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
    const auto* call = out->as<rx::CallNode>();
    if (call == nullptr) return out;
    Array<Expr> args;
    bool changed = false;
    for (const Expr& arg : call->args) {
      absl::StatusOr<Expr> leaf = BindNested(arg, bb);
      if (!leaf.ok()) return leaf.status();
      changed |= !leaf->same_as(arg);
      args.push_back(*leaf);
    }
    if (!changed) return out;
    rx::Call normalized = Downcast<rx::Call>(*out);
    normalized.CopyOnWrite()->args = args;
    return Expr(normalized);
  }

 private:
  // `arg` with every call in it (at any depth of tuples) bound to a variable first.
  absl::StatusOr<Expr> BindNested(const Expr& arg, BlockBuilder* bb) {
    if (const auto* tuple = arg.as<rx::TupleNode>()) {
      Array<Expr> fields;
      bool changed = false;
      for (const Expr& f : tuple->fields) {
        absl::StatusOr<Expr> leaf = BindNested(f, bb);
        if (!leaf.ok()) return leaf;
        changed |= !leaf->same_as(f);
        fields.push_back(*leaf);
      }
      if (!changed) return arg;
      rx::Tuple t = Downcast<rx::Tuple>(arg);
      t.CopyOnWrite()->fields = fields;
      return Expr(t);
    }
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
