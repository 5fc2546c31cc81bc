// ComputePrimValue: an R.prim_value of an expression that is not an integer (a comparison such as
// `R.prim_value(n > 2)` used as an If condition, a float cast of a shape variable) becomes a call
// of a generated host PrimFunc `compute_symbolic_expr(vars...) -> dtype` that returns it, with the
// expression's variables as arguments; the call is bound to a var.
//
// Why: the VM evaluates no expressions of its own. Integer expressions are computed on the shape
// heap by VMShapeLower (which then passes the variables here as make_prim_value results); others
// need a kernel, as in TVM's ComputePrimValue, which this follows. Runs before VMShapeLower.
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"
#include "compiler/relax/transform/binding_rewriter.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

// Whether `e` is an R.prim_value the VM cannot produce from immediates and the shape heap.
bool NeedsKernel(const Expr& e) {
  const auto* p = e.as<rx::PrimValueNode>();
  if (p == nullptr || p->value.dtype().is_int() || p->value.as<VarNode>()) return false;
  std::vector<Var> vars;
  CollectVars(p->value, &vars);
  return !vars.empty();
}

class PrimValueRewriter : public BindingRewriter {
 public:
  using BindingRewriter::BindingRewriter;

 protected:
  absl::StatusOr<Expr> RewriteValue(const Expr& value, BlockBuilder* bb) override {
    absl::StatusOr<Expr> out = BindingRewriter::RewriteValue(value, bb);
    if (!out.ok()) return out;
    if (NeedsKernel(*out)) return Compute(out->as<rx::PrimValueNode>()->value, bb);
    if (const auto* i = out->as<rx::IfNode>(); i && NeedsKernel(i->cond)) {
      absl::StatusOr<Expr> cond = Compute(i->cond.as<rx::PrimValueNode>()->value, bb);
      if (!cond.ok()) return cond;
      absl::StatusOr<Var> var = bb->Emit(*cond, "cond");
      if (!var.ok()) return var.status();
      rx::If with_var = Downcast<rx::If>(*out);
      with_var.CopyOnWrite()->cond = *var;
      return Expr(with_var);
    }
    if (out->as<rx::CallNode>() != nullptr) {
      return RewriteCallArgs(Downcast<rx::Call>(*out), [&](const Expr& arg) { return LiftArg(arg, bb); });
    }
    return out;
  }

 private:
  // A call argument (or a field of a tuple argument): lifted and bound to a var when it needs a
  // kernel.
  absl::StatusOr<Expr> LiftArg(const Expr& arg, BlockBuilder* bb) {
    if (!NeedsKernel(arg)) return arg;
    absl::StatusOr<Expr> call = Compute(arg.as<rx::PrimValueNode>()->value, bb);
    if (!call.ok()) return call;
    absl::StatusOr<Var> var = bb->Emit(*call, "prim");
    if (!var.ok()) return var.status();
    return Expr(*var);
  }

  // compute_symbolic_expr(v...) { return value; } added to the module, and its call on the vars.
  absl::StatusOr<Expr> Compute(const PrimExpr& value, BlockBuilder* bb) {
    std::vector<Var> vars;
    CollectVars(value, &vars);
    Array<Var> params;
    Array<Expr> args;
    std::unordered_map<const VarNode*, PrimExpr> rename;
    for (const Var& v : vars) {
      Var p(v->name, v->dtype);
      params.push_back(p);
      rename[v.get()] = p;
      rx::PrimValue arg(v);
      arg.CopyOnWrite()->ty = PrimType(v->dtype, v);
      args.push_back(arg);
    }
    DataType dtype = value.dtype();
    Stmt body = Evaluate(Call(dtype, Op("tirx.ret"), {kiln::relax::Substitute(value, rename)}));
    std::string name = "compute_symbolic_expr";
    for (int i = 1; module_.GetGlobalVar(name).defined(); ++i) name = absl::StrCat("compute_symbolic_expr", i);
    PrimFunc f(params, body, PrimType(dtype), {},
               {{String("global_symbol"), String(name)}, {String("tir.is_host_func"), IntImm(DataType::Bool(), 1)}});
    GlobalVar gv(name);
    IRModule next = module_;
    next.CopyOnWrite()->functions.Set(gv, f);
    module_ = next;
    bb->set_module(module_);
    return Typed(rx::Call(gv, args), module_);
  }
};

}  // namespace

absl::StatusOr<IRModule> ComputePrimValue(const IRModule& module) { return PrimValueRewriter(module).Run(); }

}  // namespace kiln::relax::transform
