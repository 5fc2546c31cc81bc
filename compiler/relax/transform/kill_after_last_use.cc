// KillAfterLastUse: after the binding that uses a value for the last time, its register is
// released: relax.memory.kill_storage for a storage, relax.memory.kill_tensor for a tensor,
// relax.vm.kill_object for any other object (LowerRuntimeBuiltin turns all three into
// vm.kill_object).
//
// Why: a VM register keeps its value alive until the function returns. Releasing it at its last use
// frees what StaticPlanBlockMemory could not plan (tensors with symbolic sizes, storages once their
// tensors are dead) as early as TVM does (kill_after_last_use.cc, whose rules these are):
//   * the last use is the innermost binding reading the value, in program order (inside an If
//     branch that is a binding of the branch, so the kill happens in that branch only);
//   * function parameters, values a function or branch result reads, values already killed,
//     constants, closures, shapes and prim values (not held in a register of their own) are never
//     killed.
// Killing a register never ends another binding's value: a binding of a plain variable is a copy
// (VMCodeGen), and values are reference counted.
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"
#include "compiler/relax/transform/binding_rewriter.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

// For each binding var, the values whose last use it is (in binding order).
class LastUses {
 public:
  void Collect(const rx::FunctionNode* f) {
    VisitSeq(f->body);
    for (const Var& v : order_) {
      auto it = last_use_.find(v.get());
      if (it == last_use_.end() || it->second == nullptr || killed_.count(v.get()) || !InRegister(v)) continue;
      const char* op = storages_.count(v.get())                    ? "relax.memory.kill_storage"
                       : v->ty.as<TensorTypeNode>() != nullptr ? "relax.memory.kill_tensor"
                                                                   : "relax.vm.kill_object";
      kills_[it->second].emplace_back(op, v);
    }
  }

  // The kills to emit after the binding of `var`: (kill operator, value), in binding order.
  const std::vector<std::pair<const char*, Var>>& KillsAfter(const VarNode* var) const {
    static const std::vector<std::pair<const char*, Var>> kNone;
    auto it = kills_.find(var);
    return it == kills_.end() ? kNone : it->second;
  }

 private:
  bool InRegister(const Var& v) const {
    return registers_.count(v.get()) && !v->ty.as<FuncTypeNode>() && !v->ty.as<ShapeTypeNode>() &&
           !v->ty.as<PrimTypeNode>();
  }

  void VisitSeq(const Expr& e) {
    const auto* seq = e.as<rx::SeqExprNode>();
    if (seq == nullptr) return Visit(e);
    for (const rx::BindingBlock& block : seq->blocks) {
      for (const rx::Binding& b : block->bindings) {
        const VarNode* saved = current_;
        current_ = b->var.get();
        order_.push_back(b->var);
        const Expr& value = b.as<rx::VarBindingNode>() ? b.as<rx::VarBindingNode>()->value
                                                       : b.as<rx::MatchCastNode>()->value;
        Classify(b->var, value);
        Visit(value);
        current_ = saved;
      }
    }
    // A result is never killed: the function's is returned, and a branch's result (which may
    // use values the branch defines) has no binding of that branch to kill after.
    const VarNode* saved = current_;
    current_ = nullptr;
    Visit(seq->body);
    current_ = saved;
  }

  // Which bound values live in a register of their own, and which are storages or kills.
  void Classify(const Var& var, const Expr& value) {
    if (const auto* call = value.as<rx::CallNode>()) {
      if (IsOp(call->op, "relax.memory.kill_storage") || IsOp(call->op, "relax.memory.kill_tensor") ||
          IsOp(call->op, "relax.vm.kill_object")) {
        if (const auto* v = call->args.empty() ? nullptr : call->args[0].as<VarNode>()) killed_.insert(v);
        return;
      }
      if (IsOp(call->op, "relax.memory.alloc_storage") || IsOp(call->op, "relax.vm.alloc_storage")) {
        storages_.insert(var.get());
      }
      registers_.insert(var.get());
      return;
    }
    if (value.as<VarNode>() || value.as<rx::IfNode>() || value.as<rx::TupleNode>() || value.as<rx::TupleGetItemNode>()) {
      registers_.insert(var.get());
    }
  }

  void Use(const VarNode* v) { last_use_[v] = current_; }

  void Visit(const Expr& e) {
    if (!e.defined()) return;
    if (const auto* v = e.as<VarNode>()) {
      Use(v);
    } else if (const auto* t = e.as<rx::TupleNode>()) {
      for (const Expr& f : t->fields) Visit(f);
    } else if (const auto* g = e.as<rx::TupleGetItemNode>()) {
      Visit(g->tuple);
    } else if (const auto* c = e.as<rx::CallNode>()) {
      Visit(c->op);
      for (const Expr& a : c->args) Visit(a);
    } else if (const auto* i = e.as<rx::IfNode>()) {
      Visit(i->cond);
      VisitSeq(i->true_branch);
      VisitSeq(i->false_branch);
    } else if (e.as<rx::SeqExprNode>()) {
      VisitSeq(e);
    }
  }

  const VarNode* current_ = nullptr;  // null: a result
  std::vector<Var> order_;
  std::unordered_map<const VarNode*, std::vector<std::pair<const char*, Var>>> kills_;
  std::unordered_map<const VarNode*, const VarNode*> last_use_;
  std::unordered_set<const VarNode*> registers_, storages_, killed_;
};

class KillRewriter : public BindingRewriter {
 public:
  using BindingRewriter::BindingRewriter;

 protected:
  absl::StatusOr<rx::Function> RewriteFunction(const rx::Function& func) override {
    LastUses uses;
    uses.Collect(func.get());
    const LastUses* outer = uses_;
    uses_ = &uses;
    absl::StatusOr<rx::Function> out = BindingRewriter::RewriteFunction(func);
    uses_ = outer;
    return out;
  }

  absl::Status RewriteBinding(const rx::Binding& binding, BlockBuilder* bb) override {
    absl::Status st = BindingRewriter::RewriteBinding(binding, bb);
    if (!st.ok()) return st;
    for (const auto& [op, var] : uses_->KillsAfter(binding->var.get())) {
      absl::StatusOr<Var> kill = bb->Emit(rx::Call(Op(op), {var}), "_");
      if (!kill.ok()) return kill.status();
    }
    return absl::OkStatus();
  }

 private:
  const LastUses* uses_ = nullptr;
};

}  // namespace

absl::StatusOr<IRModule> KillAfterLastUse(const IRModule& module) { return KillRewriter(module).Run(); }

}  // namespace kiln::relax::transform
