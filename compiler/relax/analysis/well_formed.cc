// Relax well-formedness checker (see well_formed.h). One recursive walk per function keeps a stack
// of Relax variable scopes and the set of symbolic TIR variables defined so far.
#include "compiler/relax/analysis/well_formed.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

class Checker {
 public:
  Checker(const IRModule& module, DiagnosticList* diags) : module_(module), diags_(diags) {}

  void CheckFunction(const rx::FunctionNode* f, const Span& fallback) {
    bool outer_pure = pure_context_;
    pure_context_ = f->is_pure && !ForcePure(f);
    scopes_.emplace_back();
    for (const Var& p : f->params) {
      if (p.as<rx::DataflowVarNode>()) Error(Pick(p->span, f->span, fallback), "parameter '" + p->name + "' must not be a DataflowVar");
      Define(p, Pick(p->span, f->span, fallback));
      std::vector<Var> vars;
      CollectTypeVars(p->ty, &vars);
      for (const Var& v : vars) tir_vars_.insert(v.get());
    }
    if (const auto* seq = f->body.as<rx::SeqExprNode>()) {
      VisitSeq(seq, Pick(seq->span, f->span, fallback));
    } else {
      Error(Pick(f->span, fallback), "the body of a Relax function must be a SeqExpr");
      if (f->body.defined()) VisitExpr(f->body, Pick(f->span, fallback));
    }
    // The declared return type is not compared with the body's: TVM keeps a declared return
    // type its body does not prove (legalization tests rely on it).
    CheckTypeVars(f->ret_ty, Pick(f->span, fallback), "the return type");
    scopes_.pop_back();
    pure_context_ = outer_pure;
  }

 private:
  static bool ForcePure(const rx::FunctionNode* f) {
    const auto* v = f->attrs.Get(String("relax.force_pure")).as<IntImmNode>();
    return v && v->value != 0;
  }

  static Span Pick(const Span& a, const Span& b = Span(), const Span& c = Span()) {
    if (a.defined()) return a;
    if (b.defined()) return b;
    return c;
  }

  void Error(const Span& span, std::string msg) { diags_->Error(span, std::move(msg)); }

  bool IsDefined(const VarNode* v) const {
    for (const auto& s : scopes_) {
      if (s.count(v)) return true;
    }
    return false;
  }

  void Define(const Var& v, const Span& span) {
    if (ever_defined_.count(v.get())) {
      Error(span, "variable '" + v->name + "' is defined more than once");
    }
    ever_defined_.insert(v.get());
    scopes_.back().insert(v.get());
  }

  void CheckTypeVars(const Type& t, const Span& span, const std::string& where) {
    std::vector<Var> vars;
    CollectTypeVars(t, &vars);
    for (const Var& v : vars) CheckTirVar(v, span, where);
  }

  void CheckPrimExpr(const PrimExpr& e, const Span& span, const std::string& where) {
    std::vector<Var> vars;
    CollectVars(e, &vars);
    for (const Var& v : vars) CheckTirVar(v, span, where);
  }

  void CheckTirVar(const Var& v, const Span& span, const std::string& where) {
    if (tir_vars_.count(v.get())) return;
    if (reported_tir_.insert(v.get()).second) {
      Error(span, "symbolic variable '" + v->name + "' in " + where +
                      " is used before it is defined (by a parameter annotation or R.match_cast)");
    }
  }

  void VisitSeq(const rx::SeqExprNode* seq, const Span& ctx) {
    scopes_.emplace_back();
    for (const rx::BindingBlock& block : seq->blocks) {
      bool dataflow = block.as<rx::DataflowBlockNode>() != nullptr;
      bool outer_df = in_dataflow_;
      in_dataflow_ = dataflow;
      std::vector<const VarNode*> block_df_vars;
      for (const rx::Binding& b : block->bindings) {
        VisitBinding(b, Pick(b->span, block->span, ctx));
        if (b->var.as<rx::DataflowVarNode>()) block_df_vars.push_back(b->var.get());
      }
      // Dataflow variables die with their block.
      for (const VarNode* v : block_df_vars) {
        scopes_.back().erase(v);
        dead_dataflow_.insert(v);
      }
      in_dataflow_ = outer_df;
    }
    if (seq->body.defined()) {
      VisitExpr(seq->body, Pick(seq->body->span, seq->span, ctx));
    } else {
      Error(Pick(seq->span, ctx), "a SeqExpr must have a body");
    }
    scopes_.pop_back();
  }

  void VisitBinding(const rx::Binding& b, const Span& span) {
    const Var& var = b->var;
    const Expr* value = nullptr;
    if (const auto* vb = b.as<rx::VarBindingNode>()) value = &vb->value;
    const auto* mc = b.as<rx::MatchCastNode>();
    if (mc) value = &mc->value;
    if (var.as<rx::DataflowVarNode>() && !in_dataflow_) {
      Error(span, "DataflowVar '" + var->name + "' is bound outside a dataflow block");
    }
    // A local function may call itself: its name is visible in its body.
    bool is_func = value && value->as<rx::FunctionNode>();
    if (is_func) Define(var, span);
    size_t errors_before = diags_->items().size();
    if (value && value->defined()) VisitExpr(*value, Pick((*value)->span, span));
    bool value_ok = diags_->items().size() == errors_before;
    if (mc) {
      std::vector<Var> vars;
      CollectTypeVars(mc->cast_ty, &vars);
      for (const Var& v : vars) tir_vars_.insert(v.get());
    }
    if (!is_func) Define(var, span);
    CheckTypeVars(var->ty, span, "the type of '" + var->name + "'");
    if (!value_ok || !value || !value->defined()) return;

    absl::StatusOr<Type> inferred = InferExprType(*value, module_);
    if (!inferred.ok()) {
      Error(Pick((*value)->span, span), std::string(inferred.status().message()));
      return;
    }
    std::string why;
    if (mc) {
      if (!TypesCompatible(mc->cast_ty, *inferred, &why)) {
        Error(span, "match_cast: cannot cast a value of type " + TypeToString(*inferred) + " to " +
                        TypeToString(mc->cast_ty) + " (" + why + ")");
      }
      if (var->ty.defined() && !TypesCompatible(var->ty, mc->cast_ty, &why)) {
        Error(span, "match_cast: the variable '" + var->name + "' is annotated " + TypeToString(var->ty) +
                        " but the cast is to " + TypeToString(mc->cast_ty) + " (" + why + ")");
      }
      return;
    }
    if (var->ty.defined() && !TypesCompatible(var->ty, *inferred, &why)) {
      Error(span, "'" + var->name + "' is annotated " + TypeToString(var->ty) + " but its value has type " +
                      TypeToString(*inferred) + " (" + why + ")");
    }
  }

  void CheckPurity(const rx::CallNode* call, const Span& span) {
    bool impure = false;
    std::string name;
    if (const auto* op = call->op.as<OpNode>()) {
      const OpSchema* s = OpRegistry::Global().FindByName(op->name);
      impure = s && !s->is_pure;
      if (s) name = "R." + s->script_name;
    } else {
      Type t = call->op.as<GlobalVarNode>() ? InferExprType(call->op, module_).value_or(Type()) : ExprType(call->op);
      if (const auto* ft = t.as<FuncTypeNode>()) impure = !ft->purity;
      name = "an impure function";
    }
    if (!impure) return;
    if (in_dataflow_) {
      Error(span, "impure call to " + name + " inside a dataflow block");
    } else if (pure_context_) {
      Error(span, "impure call to " + name + " inside a pure function (mark it R.function(pure=False))");
    }
  }

  void VisitExpr(const Expr& e, const Span& ctx) {
    if (!e.defined()) return;
    Span here = Pick(e->span, ctx);
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kDataflowVar: {
        const auto* v = static_cast<const VarNode*>(e.get());
        // A use carries no span of its own (the node is the definition): report at the context.
        if (IsDefined(v)) return;
        if (dead_dataflow_.count(v)) {
          Error(ctx, "dataflow variable '" + v->name + "' is used outside its dataflow block (list it in R.output)");
        } else {
          Error(ctx, "variable '" + v->name + "' is used before it is defined");
        }
        return;
      }
      case NodeKind::kGlobalVar: {
        const auto* gv = static_cast<const GlobalVarNode*>(e.get());
        if (!module_.Lookup(gv->name).defined()) {
          Error(here, "cannot find function '" + gv->name + "' in the module");
        }
        return;
      }
      case NodeKind::kRelaxCall: {
        const auto* call = static_cast<const rx::CallNode*>(e.get());
        if (!call->op.as<OpNode>()) VisitExpr(call->op, here);
        for (const Expr& a : call->args) VisitExpr(a, here);
        for (const Type& t : call->ty_args) CheckTypeVars(t, here, "the call's type arguments");
        CheckPurity(call, here);
        if (const auto* op = call->op.as<OpNode>(); op != nullptr && op->name == "relax.call_tir_inplace") {
          absl::Status st = ValidateCallTirInplace(Downcast<rx::Call>(e));
          if (!st.ok()) Error(here, std::string(st.message()));
        }
        return;
      }
      case NodeKind::kTuple:
        for (const Expr& f : static_cast<const rx::TupleNode*>(e.get())->fields) VisitExpr(f, here);
        return;
      case NodeKind::kTupleGetItem:
        VisitExpr(static_cast<const rx::TupleGetItemNode*>(e.get())->tuple, here);
        return;
      case NodeKind::kShapeExpr:
        for (const PrimExpr& v : static_cast<const rx::ShapeExprNode*>(e.get())->values) {
          CheckPrimExpr(v, here, "a shape");
        }
        return;
      case NodeKind::kPrimValue:
        CheckPrimExpr(static_cast<const rx::PrimValueNode*>(e.get())->value, here, "a prim value");
        return;
      case NodeKind::kIf: {
        const auto* n = static_cast<const rx::IfNode*>(e.get());
        VisitExpr(n->cond, here);
        for (const Expr& branch : {n->true_branch, n->false_branch}) {
          if (const auto* seq = branch.as<rx::SeqExprNode>()) {
            VisitSeq(seq, Pick(seq->span, here));
          } else {
            Error(here, "the branches of an If must be SeqExprs");
            VisitExpr(branch, here);
          }
        }
        return;
      }
      case NodeKind::kSeqExpr:
        VisitSeq(static_cast<const rx::SeqExprNode*>(e.get()), here);
        return;
      case NodeKind::kFunction: {
        // A nested function sees the enclosing scopes (closures) but not the dataflow block.
        bool outer_df = in_dataflow_;
        in_dataflow_ = false;
        CheckFunction(static_cast<const rx::FunctionNode*>(e.get()), here);
        in_dataflow_ = outer_df;
        return;
      }
      default:
        return;  // constants, strings, dtypes, ops, extern functions
    }
  }

  const IRModule& module_;
  DiagnosticList* diags_;
  std::vector<std::unordered_set<const VarNode*>> scopes_;
  std::unordered_set<const VarNode*> ever_defined_;
  std::unordered_set<const VarNode*> dead_dataflow_;
  std::unordered_set<const VarNode*> tir_vars_;
  std::unordered_set<const VarNode*> reported_tir_;
  bool in_dataflow_ = false;
  bool pure_context_ = false;
};

}  // namespace

absl::Status CheckWellFormed(const IRModule& module, DiagnosticList* diags) {
  DiagnosticList local;
  DiagnosticList* out = diags ? diags : &local;
  size_t before = out->items().size();
  for (const auto& [gv, func] : module.Functions()) {
    if (const auto* f = func.as<rx::FunctionNode>()) {
      // Each function has its own variables; symbolic vars do not cross functions.
      Checker checker(module, out);
      checker.CheckFunction(f, f->span);
    }
  }
  DiagnosticList added;
  for (size_t i = before; i < out->items().size(); ++i) added.Add(out->items()[i]);
  return added.ToStatus();
}

}  // namespace kiln::relax
