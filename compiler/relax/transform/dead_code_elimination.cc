// DeadCodeElimination: removes bindings whose value is unused and pure, and functions that no
// exported entry reaches (TVM's DeadCodeElimination).
//
// Why: FuseOps and FuseTIR leave behind the PrimFuncs they merged and the "Primitive" Relax
// functions they lowered, and rewrites leave bindings nobody reads; later passes (memory planning,
// codegen) would otherwise pay for them. Entries are the functions with a global_symbol (public
// ones) and ExternFuncs; reachability follows every GlobalVar a function mentions (Relax calls,
// call_tir callees, TIR calls). If some function mentions a GlobalVar the module lacks, functions
// are left alone, as TVM does. A binding is kept when its value may have an effect: a call to an
// impure operator, to an impure Relax function, to a PrimFunc or extern function directly
// (destination-passing, writes its arguments), or through a callee whose type is not known pure.
// MatchCast bindings are kept: they are run-time checks and define symbolic variables.
#include <string>
#include <unordered_set>
#include <vector>

#include "compiler/relax/op/op.h"
#include "compiler/relax/transform/ir_rewrite.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {
namespace {

using namespace ir::relax;  // NOLINT
using ir::Array;
using ir::Downcast;
using ir::ObjectRef;

bool CallIsPure(const CallNode* call, const ir::IRModule& module) {
  if (const auto* op = call->op.as<ir::OpNode>()) {
    const OpSchema* schema = OpRegistry::Global().FindByName(op->name);
    return schema != nullptr && schema->is_pure;
  }
  if (const auto* gv = call->op.as<ir::GlobalVarNode>()) {
    const auto* callee = module.Lookup(gv->name).as<FunctionNode>();
    return callee != nullptr && callee->is_pure;
  }
  if (const auto* ft = call->op->ty.as<ir::FuncTypeNode>()) return ft->purity;
  return false;
}

// Whether evaluating `value` may have an effect (ignoring the bodies of closures it creates).
bool HasEffect(const ir::Expr& value, const ir::IRModule& module) {
  bool effect = false;
  WalkIR(value, [&](const ObjectRef& node) {
    if (effect || node.as<FunctionNode>()) return false;
    if (const auto* call = node.as<CallNode>()) effect = !CallIsPure(call, module);
    return !effect;
  });
  return effect;
}

void CollectVarUses(const ObjectRef& node, std::unordered_set<const ir::Object*>* used) {
  WalkIR(node, [&](const ObjectRef& n) {
    if (n.as<ir::VarNode>()) used->insert(n.get());
    return true;
  });
}

class BindingRemover {
 public:
  explicit BindingRemover(const ir::IRModule& module) : module_(module) {}

  ir::Expr CleanExpr(const ir::Expr& e) {
    if (e.as<SeqExprNode>()) return CleanSeq(Downcast<SeqExpr>(e));
    if (const auto* if_node = e.as<IfNode>()) {
      ir::Expr t = CleanExpr(if_node->true_branch), f = CleanExpr(if_node->false_branch);
      if (t.same_as(if_node->true_branch) && f.same_as(if_node->false_branch)) return e;
      If out = Downcast<If>(e);
      IfNode* n = out.CopyOnWrite();
      n->true_branch = t;
      n->false_branch = f;
      return out;
    }
    return e;
  }

 private:
  SeqExpr CleanSeq(const SeqExpr& seq) {
    // Nested scopes first, so that what they stop using is seen below.
    std::vector<std::vector<Binding>> blocks;
    for (const BindingBlock& block : seq->blocks) {
      std::vector<Binding> bindings;
      for (const Binding& b : block->bindings) {
        if (const auto* vb = b.as<VarBindingNode>()) {
          ir::Expr v = CleanExpr(vb->value);
          bindings.push_back(v.same_as(vb->value) ? b : Binding(VarBinding(vb->var, v, vb->span)));
        } else {
          bindings.push_back(b);
        }
      }
      blocks.push_back(std::move(bindings));
    }
    std::unordered_set<const ir::Object*> used;
    CollectVarUses(seq->body, &used);
    bool changed = false;
    for (size_t bi = blocks.size(); bi-- > 0;) {
      std::vector<Binding> kept;
      for (size_t i = blocks[bi].size(); i-- > 0;) {
        const Binding& b = blocks[bi][i];
        const auto* vb = b.as<VarBindingNode>();
        if (vb != nullptr && !used.count(b->var.get()) && !HasEffect(vb->value, module_)) {
          changed = true;
          continue;
        }
        if (vb != nullptr) {
          CollectVarUses(vb->value, &used);
        } else {
          const auto* mc = b.as<MatchCastNode>();
          CollectVarUses(mc->value, &used);
          CollectVarUses(mc->cast_ty, &used);
        }
        CollectVarUses(b->var->ty, &used);
        kept.push_back(b);
      }
      blocks[bi].assign(kept.rbegin(), kept.rend());
    }
    Array<BindingBlock> new_blocks;
    for (size_t bi = 0; bi < blocks.size(); ++bi) {
      const BindingBlock& old = seq->blocks[bi];
      if (blocks[bi].empty()) {
        changed = true;
        continue;
      }
      bool same = blocks[bi].size() == old->bindings.size();
      for (size_t i = 0; same && i < blocks[bi].size(); ++i) same = blocks[bi][i].same_as(old->bindings[i]);
      if (same) {
        new_blocks.push_back(old);
        continue;
      }
      changed = true;
      Array<Binding> arr(blocks[bi]);
      new_blocks.push_back(old.as<DataflowBlockNode>() ? BindingBlock(DataflowBlock(arr, old->span))
                                                       : BindingBlock(arr, old->span));
    }
    if (!changed) return seq;
    SeqExpr out(new_blocks, seq->body, seq->span);
    out.CopyOnWrite()->ty = seq->ty;
    return out;
  }

  const ir::IRModule& module_;
};

// GlobalVar names a function mentions, in first-seen order.
std::vector<std::string> Callees(const ir::BaseFunc& func) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  WalkIR(func, [&](const ObjectRef& n) {
    if (const auto* gv = n.as<ir::GlobalVarNode>()) {
      if (seen.insert(gv->name).second) out.push_back(gv->name);
    }
    return true;
  });
  return out;
}

ir::IRModule RemoveUnusedFunctions(const ir::IRModule& module) {
  std::vector<std::string> stack;
  std::unordered_set<std::string> reachable;
  for (const auto& [gv, func] : module.Functions()) {
    if (func.as<ExternFuncNode>() || !func->GetGlobalSymbol().empty()) {
      reachable.insert(gv->name);
      stack.push_back(gv->name);
    }
  }
  while (!stack.empty()) {
    ir::BaseFunc func = module.Lookup(stack.back());
    stack.pop_back();
    if (!func.defined()) return module;  // a reference to a function the module lacks
    for (const std::string& callee : Callees(func)) {
      if (reachable.insert(callee).second) stack.push_back(callee);
    }
  }
  if (reachable.size() == module->functions.size()) return module;
  ir::IRModule out = module;
  ir::IRModuleNode* n = out.CopyOnWrite();
  ir::Map<ir::GlobalVar, ir::BaseFunc> kept;
  for (const auto& [gv, func] : module.Functions()) {
    if (reachable.count(gv->name)) kept.Set(gv, func);
  }
  n->functions = kept;
  return out;
}

}  // namespace

absl::StatusOr<ir::IRModule> DeadCodeElimination(const ir::IRModule& module) {
  ir::IRModule mod = RemoveUnusedFunctions(module);
  BindingRemover remover(mod);
  ir::IRModule cleaned = mod;
  for (const auto& [gv, func] : mod.Functions()) {
    const auto* f = func.as<FunctionNode>();
    if (f == nullptr) continue;
    ir::Expr body = remover.CleanExpr(f->body);
    if (body.same_as(f->body)) continue;
    Function nf = Downcast<Function>(func);
    nf.CopyOnWrite()->body = body;
    cleaned.Add(gv, nf);
  }
  return RemoveUnusedFunctions(cleaned);
}

}  // namespace kiln::relax::transform
