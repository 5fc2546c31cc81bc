// ToNonDataflow: every DataflowBlock becomes an ordinary BindingBlock and every DataflowVar a Var
// of the same name and type.
//
// Why: the VM-lowered form (passes.h) has no dataflow blocks. Dataflow regions only matter to the
// graph-level passes before this point; memory planning and code generation work on plain
// sequences of bindings, and impure calls (kill_object, alloc_shape_heap) may not sit in a
// dataflow block.
#include "compiler/relax/transform/binding_rewriter.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

class ToNonDataflowRewriter : public BindingRewriter {
 public:
  using BindingRewriter::BindingRewriter;

 protected:
  bool KeepDataflow() const override { return false; }

  absl::Status RewriteBinding(const rx::Binding& binding, BlockBuilder* bb) override {
    if (const auto* dv = binding->var.as<rx::DataflowVarNode>()) {
      Substitute(binding->var, Var(dv->name, dv->ty, dv->span));
    }
    return BindingRewriter::RewriteBinding(binding, bb);
  }
};

}  // namespace

absl::StatusOr<IRModule> ToNonDataflow(const IRModule& module) { return ToNonDataflowRewriter(module).Run(); }

}  // namespace kiln::relax::transform
