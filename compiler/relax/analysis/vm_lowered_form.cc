// The VM-lowered form checker (see vm_lowered_form.h): one recursive walk per function.
#include "compiler/relax/analysis/vm_lowered_form.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

// The operators VMCodeGen handles itself; every other operator must have been lowered.
bool IsVMOp(const std::string& name) {
  return name == "relax.call_builtin_with_ctx" || name == "relax.null_value" || name == "relax.vm.alloc_storage" ||
         name == "relax.vm.alloc_tensor" || name == "relax.vm.kill_object";
}

bool IsConstPrim(const PrimExpr& e) { return e.as<IntImmNode>() || e.as<FloatImmNode>(); }

class Checker {
 public:
  explicit Checker(std::vector<std::string>* errors) : errors_(errors) {}

  void CheckFunction(const std::string& name, const rx::FunctionNode* f) {
    function_ = name;
    CheckSeq(f->body, "the body");
  }

 private:
  void Error(const std::string& what) { errors_->push_back(absl::StrCat("function '", function_, "': ", what)); }

  static std::string Describe(const Expr& e) {
    if (const auto* op = e.as<OpNode>()) return op->name;
    return e.defined() ? e->type_key() : "null";
  }

  bool IsLeaf(const Expr& e) const {
    if (e.as<VarNode>() || e.as<rx::ConstantNode>() || e.as<rx::StringImmNode>() || e.as<rx::DataTypeImmNode>() ||
        e.as<GlobalVarNode>() || e.as<rx::ExternFuncNode>()) {
      return true;
    }
    if (const auto* p = e.as<rx::PrimValueNode>()) return IsConstPrim(p->value);
    if (const auto* s = e.as<rx::ShapeExprNode>()) {
      for (const PrimExpr& v : s->values) if (!v.as<IntImmNode>()) return false;
      return true;
    }
    return false;
  }

  void CheckLeaves(const Array<Expr>& args, const std::string& where) {
    for (size_t i = 0; i < args.size(); ++i) {
      if (!IsLeaf(args[i])) Error(absl::StrCat(where, ": argument ", i, " is a ", Describe(args[i]), ", not a leaf"));
    }
  }

  void CheckSeq(const Expr& e, const std::string& where) {
    const auto* seq = e.as<rx::SeqExprNode>();
    if (seq == nullptr) return Error(where + " is not a SeqExpr");
    for (const rx::BindingBlock& block : seq->blocks) {
      if (block.as<rx::DataflowBlockNode>()) Error("a dataflow block remains");
      for (const rx::Binding& b : block->bindings) {
        const auto* vb = b.as<rx::VarBindingNode>();
        if (vb == nullptr) {
          Error("match_cast of '" + b->var->name + "' remains");
          continue;
        }
        if (b->var.as<rx::DataflowVarNode>()) Error("'" + b->var->name + "' is a DataflowVar");
        CheckValue(vb->value, "the value of '" + b->var->name + "'");
      }
    }
    if (!IsLeaf(seq->body)) Error(where + ": the result is a " + Describe(seq->body) + ", not a leaf");
  }

  void CheckValue(const Expr& v, const std::string& where) {
    if (const auto* c = v.as<rx::CallNode>()) return CheckCall(c, where);
    if (const auto* i = v.as<rx::IfNode>()) {
      if (!i->cond.as<VarNode>()) Error(where + ": the If condition is not a var");
      CheckSeq(i->true_branch, where + " (then branch)");
      CheckSeq(i->false_branch, where + " (else branch)");
      return;
    }
    if (const auto* t = v.as<rx::TupleNode>()) return CheckLeaves(t->fields, where);
    if (const auto* g = v.as<rx::TupleGetItemNode>()) {
      if (!IsLeaf(g->tuple)) Error(where + ": TupleGetItem of a non-leaf");
      return;
    }
    if (v.as<GlobalVarNode>() || v.as<rx::ExternFuncNode>() || !IsLeaf(v)) {
      Error(where + " is a " + Describe(v) + ", which the VM-lowered form does not have");
    }
  }

  void CheckCall(const rx::CallNode* c, const std::string& where) {
    if (const auto* op = c->op.as<OpNode>()) {
      if (!IsVMOp(op->name)) return Error(where + " calls the operator " + op->name + ", which was not lowered");
      if (op->name == "relax.call_builtin_with_ctx") {
        const auto* args = c->args.size() == 2 ? c->args[1].as<rx::TupleNode>() : nullptr;
        if (!args || !c->args[0].as<rx::ExternFuncNode>()) {
          return Error(where + ": call_builtin_with_ctx needs (ExternFunc, Tuple of arguments)");
        }
        return CheckLeaves(args->fields, where);
      }
      return CheckLeaves(c->args, where);
    }
    if (!c->op.as<rx::ExternFuncNode>() && !c->op.as<GlobalVarNode>() && !c->op.as<VarNode>()) {
      return Error(where + " calls a " + Describe(c->op));
    }
    CheckLeaves(c->args, where);
  }

  std::vector<std::string>* errors_;
  std::string function_;
};

}  // namespace

absl::Status CheckVMLoweredForm(const IRModule& module) {
  std::vector<std::string> errors;
  Checker checker(&errors);
  for (const auto& [gv, func] : module.Functions()) {
    if (const auto* f = func.as<rx::FunctionNode>()) checker.CheckFunction(gv->name, f);
  }
  if (errors.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("not in the VM-lowered form:\n", absl::StrJoin(errors, "\n")));
}

}  // namespace kiln::relax
