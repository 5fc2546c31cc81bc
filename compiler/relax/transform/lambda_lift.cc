// LambdaLift: every function defined inside another (a binding `f = <Function>`) becomes a
// module-level function named "<outermost function>_<f>" (made unique with a suffix).
//   * Without free variables, uses of f become the new GlobalVar and the binding goes away; a
//     recursive local function calls its GlobalVar.
//   * With free variables (a closure), the lifted function takes them as extra parameters after
//     its own, and the binding becomes f = R.make_closure(lifted, (captured...)); calls of f stay
//     calls of a closure variable, which the VM invokes with the captured values appended.
//
// Why: the VM has no nested functions, only module functions and closures over them (passes.h:
// "Call(Var holding a closure, args)"); VMShapeLower and VMCodeGen expect lifted functions. TVM
// names and orders parameters the same way (lambda_lift.cc), so vm.builtin.make_closure and
// invoke_closure bind the captured values as TVM's do. A recursive closure (a local function that
// both captures variables and calls itself) is not supported and is reported.
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/op.h"
#include "compiler/relax/transform/binding_rewriter.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

// The Relax variables `e` uses without defining them, in first-use order.
class FreeVarCollector {
 public:
  std::vector<Var> Collect(const Expr& e) {
    Visit(e);
    return free_;
  }

 private:
  void Use(const Var& v) {
    if (defined_.count(v.get()) || !seen_.insert(v.get()).second) return;
    free_.push_back(v);
  }

  void Visit(const Expr& e) {
    if (!e.defined()) return;
    if (const auto* v = e.as<VarNode>()) {
      if (v->dtype.is_void()) Use(Downcast<Var>(e));  // a Relax var; TIR vars have a dtype
    } else if (const auto* t = e.as<rx::TupleNode>()) {
      for (const Expr& f : t->fields) Visit(f);
    } else if (const auto* g = e.as<rx::TupleGetItemNode>()) {
      Visit(g->tuple);
    } else if (const auto* c = e.as<rx::CallNode>()) {
      Visit(c->op);
      for (const Expr& a : c->args) Visit(a);
    } else if (const auto* i = e.as<rx::IfNode>()) {
      Visit(i->cond);
      Visit(i->true_branch);
      Visit(i->false_branch);
    } else if (const auto* s = e.as<rx::SeqExprNode>()) {
      for (const rx::BindingBlock& block : s->blocks) {
        for (const rx::Binding& b : block->bindings) {
          if (const auto* vb = b.as<rx::VarBindingNode>()) {
            Visit(vb->value);
          } else {
            Visit(b.as<rx::MatchCastNode>()->value);
          }
          defined_.insert(b->var.get());
        }
      }
      Visit(s->body);
    } else if (const auto* f = e.as<rx::FunctionNode>()) {
      for (const Var& p : f->params) defined_.insert(p.get());
      Visit(f->body);
    }
  }

  std::unordered_set<const Object*> defined_, seen_;
  std::vector<Var> free_;
};

class LambdaLifter : public BindingRewriter {
 public:
  using BindingRewriter::BindingRewriter;

 protected:
  absl::Status RewriteBinding(const rx::Binding& binding, BlockBuilder* bb) override {
    const auto* vb = binding.as<rx::VarBindingNode>();
    const auto* func = vb ? vb->value.as<rx::FunctionNode>() : nullptr;
    if (func == nullptr) return BindingRewriter::RewriteBinding(binding, bb);
    const Var& self = vb->var;
    std::vector<Var> captured;
    bool recursive = false;
    for (const Var& v : FreeVarCollector().Collect(vb->value)) {
      if (v.same_as(self)) {
        recursive = true;
      } else {
        captured.push_back(v);
      }
    }
    if (recursive && !captured.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("the local function '", self->name,
                                                     "' calls itself and captures variables; lift it by hand"));
    }
    GlobalVar gv(UniqueName(absl::StrCat(current_function(), "_", self->name)));
    if (recursive) Substitute(self, gv);

    // The body sees each captured variable as the matching new parameter.
    Array<Var> params = func->params;
    for (const Var& v : captured) {
      Var param(v->name, v->ty, v->span);
      params.push_back(param);
      Substitute(v, param);
    }
    absl::StatusOr<rx::Function> lifted = RewriteFunction(Downcast<rx::Function>(vb->value));
    for (const Var& v : captured) Unsubstitute(v);
    if (!lifted.ok()) return lifted.status();
    rx::Function out = *lifted;
    out.CopyOnWrite()->params = params;
    out.CopyOnWrite()->ty = Type();
    out.CopyOnWrite()->ty = ExprType(out);
    IRModule next = module_;
    next.CopyOnWrite()->functions.Set(gv, out);
    module_ = next;
    bb->set_module(module_);

    if (captured.empty()) {
      Substitute(self, gv);
      return absl::OkStatus();
    }
    Array<Expr> values;
    for (const Var& v : captured) values.push_back(Remap(v));
    absl::StatusOr<Expr> tuple = Typed(rx::Tuple(values), module_);
    if (!tuple.ok()) return tuple.status();
    absl::StatusOr<Expr> closure = Typed(rx::Call(Op("relax.make_closure"), {gv, *tuple}), module_);
    if (!closure.ok()) return closure.status();
    bb->EmitBinding(rx::VarBinding(self, *closure, vb->span));
    return absl::OkStatus();
  }

 private:
  std::string UniqueName(const std::string& base) const {
    if (!module_.GetGlobalVar(base).defined()) return base;
    for (int i = 1;; ++i) {
      std::string name = absl::StrCat(base, "_", i);
      if (!module_.GetGlobalVar(name).defined()) return name;
    }
  }
};

}  // namespace

absl::StatusOr<IRModule> LambdaLift(const IRModule& module) { return LambdaLifter(module).Run(); }

}  // namespace kiln::relax::transform
