// StaticPlanBlockMemory: tensors allocated with relax.builtin.alloc_tensor whose size is known at
// compile time share storage when their lifetimes do not overlap.
//
// Each such allocation gets a token (bytes, dtype, storage scope, device index). A token is planned
// only while its tensor stays inside the binding block that allocates it and is only read by
// kernel (PrimFunc) calls, directly or through aliases: views (reshape, memory.view,
// ensure_zero_offset), tuples and tuple items, var-to-var bindings. A tensor that escapes
// (returned, used by a later block or an If branch, passed to a Relax function, a closure or a
// packed function, which may keep it) keeps its own allocation. The planner then walks the block:
// a token whose last kernel use has run returns its storage to a pool keyed by (scope, dtype,
// device), and a later allocation takes the smallest pooled storage of at least its size (up to
// 16x larger), else the largest smaller one (down to 1/16, grown to fit), else a new one. The
// rewrite emits relax.memory.alloc_storage(size, device, scope, dtype) at the first allocation
// using a storage and relax.memory.alloc_tensor(storage, 0, shape, dtype, device) in place of each
// planned builtin.alloc_tensor. Allocations with symbolic sizes are left as they are (one
// allocation each, sized at run time).
//
// Why: without it every intermediate tensor of a long chain of kernels is a separate allocation
// that lives until the function returns. These are TVM's rules (static_plan_block_memory.cc), so
// kiln's executables use memory as TVM's do. Kills are not emitted: storage lifetimes end with
// the function's registers.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"
#include "compiler/relax/transform/binding_rewriter.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

// The tokens a value holds: one (a planned tensor or a view of one), none (-1), or a tuple's.
struct Tokens {
  int leaf = -1;
  std::vector<Tokens> fields;
  bool tuple = false;
};

template <typename F>
void ForEachToken(const Tokens& t, F f) {
  if (t.leaf >= 0) f(t.leaf);
  for (const Tokens& field : t.fields) ForEachToken(field, f);
}

struct Token {
  int64_t bytes = 0;
  DataType dtype;
  std::string scope;
  int64_t device = 0;
  const rx::BindingBlockNode* block = nullptr;
  int uses = 0;  // kernel calls reading it
  bool discarded = false;
  int storage = -1;
};

struct Storage {
  int64_t bytes = 0;
  DataType dtype;
  std::string scope;
  int64_t device = 0;
};

bool IsViewOp(const Expr& op) {
  if (const auto* f = op.as<rx::ExternFuncNode>()) return f->global_symbol == "vm.builtin.reshape";
  return IsOp(op, "relax.reshape") || IsOp(op, "relax.memory.view") || IsOp(op, "relax.memory.ensure_zero_offset");
}

// A builtin.alloc_tensor of a constant size: its token's fields, else false.
bool PlannableAlloc(const rx::CallNode* call, Token* token) {
  if (!IsOp(call->op, "relax.builtin.alloc_tensor") || call->args.size() < 4) return false;
  const auto* shape = call->args[0].as<rx::ShapeExprNode>();
  const auto* dtype = call->args[1].as<rx::DataTypeImmNode>();
  const auto* dev = call->args[2].as<rx::PrimValueNode>();
  const auto* scope = call->args[3].as<rx::StringImmNode>();
  if (!shape || !dtype || !dev || !dev->value.as<IntImmNode>() || !scope) return false;
  int64_t elems = 1;
  for (const PrimExpr& d : shape->values) {
    const auto* imm = d.as<IntImmNode>();
    if (imm == nullptr) return false;
    elems *= imm->value;
  }
  token->bytes = elems * ((dtype->value.bits() * dtype->value.lanes() + 7) / 8);
  token->dtype = dtype->value;
  token->scope = scope->value;
  token->device = dev->value.as<IntImmNode>()->value;
  return true;
}

// Decides, for one function, which allocation uses which storage.
class Planner {
 public:
  explicit Planner(const IRModule& module) : module_(module) {}

  void Plan(const rx::FunctionNode* func) {
    InitSeq(func->body);
    remaining_.clear();
    for (const Token& t : tokens_) remaining_.push_back(t.uses);
    AllocSeq(func->body);
  }

  // The storage of the allocation bound to `var`, or -1.
  int StorageOf(const VarNode* var) const {
    auto it = alloc_token_.find(var);
    if (it == alloc_token_.end() || tokens_[it->second].discarded) return -1;
    return tokens_[it->second].storage;
  }
  const Storage& storage(int i) const { return storages_[i]; }

 private:
  // ---- stage 1: tokens, their uses, and the ones that escape ----

  Tokens TokensOf(const Expr& e) const {
    if (const auto* v = e.as<VarNode>()) {
      auto it = var_tokens_.find(v);
      return it == var_tokens_.end() ? Tokens() : it->second;
    }
    if (const auto* t = e.as<rx::TupleNode>()) {
      Tokens out;
      out.tuple = true;
      for (const Expr& f : t->fields) out.fields.push_back(TokensOf(f));
      return out;
    }
    if (const auto* g = e.as<rx::TupleGetItemNode>()) {
      Tokens tuple = TokensOf(g->tuple);
      if (tuple.tuple && g->index >= 0 && static_cast<size_t>(g->index) < tuple.fields.size()) {
        return tuple.fields[g->index];
      }
    }
    return Tokens();
  }

  void Discard(const Tokens& t) {
    ForEachToken(t, [this](int i) { tokens_[i].discarded = true; });
  }

  // Tokens used outside the block that allocated them escape it.
  void DiscardForeign(const Tokens& t, const rx::BindingBlockNode* block) {
    ForEachToken(t, [this, block](int i) {
      if (tokens_[i].block != block) tokens_[i].discarded = true;
    });
  }

  void InitSeq(const Expr& e) {
    const auto* seq = e.as<rx::SeqExprNode>();
    if (seq == nullptr) return Discard(TokensOf(e));
    for (const rx::BindingBlock& block : seq->blocks) {
      for (const rx::Binding& b : block->bindings) {
        const auto* vb = b.as<rx::VarBindingNode>();
        if (vb == nullptr) {  // match_cast: the value may be anything afterwards
          Discard(TokensOf(b.as<rx::MatchCastNode>()->value));
          continue;
        }
        InitBinding(vb, block.get());
      }
    }
    Discard(TokensOf(seq->body));
  }

  void InitBinding(const rx::VarBindingNode* vb, const rx::BindingBlockNode* block) {
    const Expr& value = vb->value;
    if (const auto* call = value.as<rx::CallNode>()) {
      Token token;
      if (PlannableAlloc(call, &token)) {
        token.block = block;
        tokens_.push_back(token);
        Tokens t;
        t.leaf = static_cast<int>(tokens_.size()) - 1;
        var_tokens_[vb->var.get()] = t;
        alloc_token_[vb->var.get()] = t.leaf;
        return;
      }
      if (IsViewOp(call->op) && !call->args.empty()) {
        Tokens t = TokensOf(call->args[0]);
        DiscardForeign(t, block);
        var_tokens_[vb->var.get()] = t;
        return;
      }
      bool kernel = CalledPrimFunc(call->op, module_) != nullptr;
      for (const Expr& arg : call->args) {
        Tokens t = TokensOf(arg);
        if (kernel) {
          DiscardForeign(t, block);
          ForEachToken(t, [this](int i) { ++tokens_[i].uses; });
        } else {
          Discard(t);
        }
      }
      return;
    }
    if (const auto* i = value.as<rx::IfNode>()) {
      Discard(TokensOf(i->cond));  // read after the kernels that may come last
      InitSeq(i->true_branch);
      InitSeq(i->false_branch);
      return;
    }
    if (value.as<rx::FunctionNode>()) return;  // planned on its own when lifted
    // Var, Tuple, TupleGetItem: aliases of what they hold.
    Tokens t = TokensOf(value);
    DiscardForeign(t, block);
    var_tokens_[vb->var.get()] = t;
  }

  // ---- stage 2: storages ----

  using PoolKey = std::tuple<std::string, std::string, int64_t>;

  PoolKey KeyOf(const Token& t) const { return {t.scope, t.dtype.ToString(), t.device}; }

  void AllocSeq(const Expr& e) {
    const auto* seq = e.as<rx::SeqExprNode>();
    if (seq == nullptr) return;
    for (const rx::BindingBlock& block : seq->blocks) {
      pool_.clear();  // storages are reused within a block only
      for (const rx::Binding& b : block->bindings) {
        const auto* vb = b.as<rx::VarBindingNode>();
        if (vb == nullptr) continue;
        if (const auto* i = vb->value.as<rx::IfNode>()) {
          auto saved = pool_;
          AllocSeq(i->true_branch);
          AllocSeq(i->false_branch);
          pool_ = saved;
          continue;
        }
        const auto* call = vb->value.as<rx::CallNode>();
        if (call == nullptr) continue;
        auto it = alloc_token_.find(vb->var.get());
        if (it != alloc_token_.end()) {
          if (!tokens_[it->second].discarded) Assign(it->second);
          continue;
        }
        if (CalledPrimFunc(call->op, module_) == nullptr) continue;
        for (const Expr& arg : call->args) {
          ForEachToken(TokensOf(arg), [this](int i) {
            if (tokens_[i].discarded || --remaining_[i] != 0) return;
            const Token& t = tokens_[i];
            pool_[KeyOf(t)].emplace(storages_[t.storage].bytes, t.storage);
          });
        }
      }
    }
  }

  void Assign(int token) {
    Token& t = tokens_[token];
    std::multimap<int64_t, int>& pool = pool_[KeyOf(t)];
    constexpr int64_t kMatchRange = 16;
    if (t.uses > 0) {
      auto mid = pool.lower_bound(t.bytes);
      if (mid != pool.end() && mid->first <= t.bytes * kMatchRange) {
        t.storage = mid->second;
        pool.erase(mid);
        return;
      }
      if (mid != pool.begin()) {
        --mid;
        if (mid->first >= t.bytes / kMatchRange) {
          t.storage = mid->second;
          storages_[t.storage].bytes = t.bytes;  // grows to fit
          pool.erase(mid);
          return;
        }
      }
    }
    t.storage = static_cast<int>(storages_.size());
    storages_.push_back({t.bytes, t.dtype, t.scope, t.device});
  }

  const IRModule& module_;
  std::vector<Token> tokens_;
  std::vector<int> remaining_;
  std::vector<Storage> storages_;
  std::unordered_map<const VarNode*, Tokens> var_tokens_;
  std::unordered_map<const VarNode*, int> alloc_token_;
  std::map<PoolKey, std::multimap<int64_t, int>> pool_;
};

class PlanRewriter : public BindingRewriter {
 public:
  using BindingRewriter::BindingRewriter;

 protected:
  absl::StatusOr<rx::Function> RewriteFunction(const rx::Function& func) override {
    Planner planner(module_);
    planner.Plan(func.get());
    Planner* outer = planner_;
    std::unordered_map<int, Var> outer_vars;
    outer_vars.swap(storage_vars_);
    planner_ = &planner;
    absl::StatusOr<rx::Function> out = BindingRewriter::RewriteFunction(func);
    planner_ = outer;
    storage_vars_.swap(outer_vars);
    return out;
  }

  absl::Status RewriteBinding(const rx::Binding& binding, BlockBuilder* bb) override {
    int storage = planner_->StorageOf(binding->var.get());
    if (storage < 0) return BindingRewriter::RewriteBinding(binding, bb);
    const auto* call = binding.as<rx::VarBindingNode>()->value.as<rx::CallNode>();
    auto it = storage_vars_.find(storage);
    if (it == storage_vars_.end()) {
      const Storage& s = planner_->storage(storage);
      absl::StatusOr<Var> var =
          bb->Emit(rx::Call(Op("relax.memory.alloc_storage"),
                            {MakeShape({IntImm(DataType::Int(64), s.bytes)}), MakeInt64(s.device), MakeString(s.scope),
                             MakeDType(s.dtype)}),
                   "storage");
      if (!var.ok()) return var.status();
      it = storage_vars_.emplace(storage, *var).first;
    }
    absl::StatusOr<Expr> tensor = Typed(
        rx::Call(Op("relax.memory.alloc_tensor"), {it->second, MakeInt64(0), call->args[0], call->args[1], call->args[2]}),
        module_);
    if (!tensor.ok()) return tensor.status();
    bb->EmitBinding(rx::VarBinding(binding->var, *tensor, binding->span));
    return absl::OkStatus();
  }

 private:
  Planner* planner_ = nullptr;
  std::unordered_map<int, Var> storage_vars_;
};

}  // namespace

absl::StatusOr<IRModule> StaticPlanBlockMemory(const IRModule& module) { return PlanRewriter(module).Run(); }

}  // namespace kiln::relax::transform
