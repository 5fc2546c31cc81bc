// AnnotateTIROpPattern: gives every PrimFunc an "op_pattern" attribute saying how FuseOps may fuse
// it (TVM's OpPatternKind: elementwise, broadcast, injective, reduction, output-elementwise-fusable
// or opaque). The kind is read off the s_tir form: for each SBlock, how the indices of its one
// BufferStore relate to the indices of its BufferLoads, and whether it has reduction iter vars.
//
// Why: FuseOps works on Relax call_tir bindings and knows nothing of the callee's body; this pass
// is where the body is looked at, once. A PrimFunc that already has an op_pattern keeps it (the
// legalizer marks the kernels it pre-schedules), and one without SBlocks is opaque, since only the
// s_tir form can be merged by FuseTIR.
#include <algorithm>
#include <unordered_set>
#include <vector>

#include "compiler/relax/transform/passes.h"
#include "compiler/relax/transform/op_pattern.h"
#include "compiler/tir/functor.h"

namespace kiln::relax::transform {
namespace {

using ir::Array;
using ir::Buffer;
using ir::BufferLoad;
using ir::BufferStore;
using ir::PrimExpr;

bool IsConstInt(const PrimExpr& e, int64_t v) {
  const auto* imm = e.as<ir::IntImmNode>();
  return imm != nullptr && imm->value == v;
}

// Element-wise identical index lists (the same Var objects or the same nodes), as TVM compares them.
bool SameIndices(const Array<PrimExpr>& a, const Array<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].same_as(b[i])) return false;
  }
  return true;
}

// Whether `e` mentions a variable for which `pred` holds.
template <typename F>
bool UsesVar(const PrimExpr& e, F pred) {
  class Finder : public ir::StmtExprVisitor {
   public:
    explicit Finder(F* p) : pred_(p) {}
    bool found = false;

   protected:
    using StmtExprVisitor::VisitExpr_;
    void VisitExpr_(const ir::VarNode* op) override { found = found || (*pred_)(op); }
    void VisitExpr_(const ir::SizeVarNode* op) override { found = found || (*pred_)(op); }

   private:
    F* pred_;
  };
  Finder f(&pred);
  f.VisitExpr(e);
  return f.found;
}

PrimExpr StripCasts(PrimExpr e) {
  while (const auto* c = e.as<ir::CastNode>()) e = c->value;
  return e;
}

class PatternKindAnalyzer : public ir::StmtExprVisitor {
 public:
  explicit PatternKindAnalyzer(const ir::PrimFunc& func) {
    for (const auto& [param, buffer] : func->buffer_map.items()) param_buffers_.insert(buffer.get());
  }
  OpPatternKind result() const { return saw_block_ ? kind_ : kOpaque; }

 protected:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  void VisitStmt_(const ir::BufferStoreNode* op) override {
    // One store per block (what a TE-style compute produces); a second one elsewhere is opaque.
    if (store_.defined() && !SameIndices(op->indices, store_->indices)) {
      kind_ = kOpaque;
      return;
    }
    store_ = ir::GetRef<BufferStore>(op);
    StmtExprVisitor::VisitStmt_(op);
  }

  void VisitExpr_(const ir::BufferLoadNode* op) override {
    loads_.push_back(ir::GetRef<BufferLoad>(op));
    StmtExprVisitor::VisitExpr_(op);
  }

  void VisitStmt_(const ir::SBlockNode* op) override {
    if (op->name == "root") {
      VisitStmt(op->body);
      return;
    }
    saw_block_ = true;
    loads_.clear();
    store_ = BufferStore();
    VisitStmt(op->body);
    if (!store_.defined()) {
      kind_ = kOpaque;
      return;
    }

    // Each load against the store: elementwise < broadcast < injective, the block takes the worst.
    OpPatternKind index_pattern = kElemWise;
    bool has_elemwise = false;
    for (const BufferLoad& load : loads_) {
      if (SameIndices(store_->indices, load->indices)) {
        has_elemwise = true;
      } else if (IsBroadcast(store_, load)) {
        index_pattern = std::max(index_pattern, kBroadcast);
      } else if (IsInjective(store_, load)) {
        index_pattern = std::max(index_pattern, kInjective);
      } else {
        index_pattern = kOpaque;
        break;
      }
    }
    // C[i, j] = A[i, j] + B[i] is elementwise in A: the broadcast operand does not change the kind.
    if (index_pattern == kBroadcast && has_elemwise) index_pattern = kElemWise;
    if (index_pattern != kOpaque) {
      // A reduction followed by an injective output block (softmax, layer norm) is fusable with
      // elementwise consumers of its output, like matmul.
      if (IsOutputBlock(op) && kind_ == kCommReduce) {
        kind_ = kOutEWiseFusable;
      } else {
        kind_ = std::max(kind_, index_pattern);
      }
      return;
    }

    std::vector<const ir::VarNode*> reduce_vars;
    for (const ir::IterVar& iv : op->iter_vars) {
      if (iv->iter_type == ir::IterVarType::kCommReduce) reduce_vars.push_back(iv->var.get());
    }
    if (reduce_vars.empty()) {
      kind_ = kOpaque;
      return;
    }
    if (IsMultiplyAdd(op->body)) {
      kind_ = std::max(kind_, kOutEWiseFusable);  // matmul, conv
      return;
    }
    for (const BufferLoad& load : loads_) {
      if (!IsPureReduce(reduce_vars, load->indices)) {
        kind_ = std::max(kind_, kOutEWiseFusable);  // pooling-like windows
        return;
      }
    }
    kind_ = std::max(kind_, kCommReduce);
  }

 private:
  bool IsOutputBlock(const ir::SBlockNode* block) const {
    for (const ir::BufferRegion& w : block->writes) {
      if (param_buffers_.count(w->buffer.get())) return true;
    }
    return false;
  }

  // Every load index (other than a 0 into a unit dim) is a store index, in the same order.
  static bool IsBroadcast(const BufferStore& store, const BufferLoad& load) {
    size_t nload = load->buffer->shape.size(), nstore = store->buffer->shape.size();
    if (load->indices.size() != nload || store->indices.size() != nstore) return false;
    for (size_t i = 0, j = 0; i < nload; ++i) {
      if (IsConstInt(load->buffer->shape[i], 1) && IsConstInt(load->indices[i], 0)) continue;
      while (j < nstore && !store->indices[j].same_as(load->indices[i])) ++j;
      if (j == nstore) return false;
    }
    return true;
  }

  // The store indices are plain vars and the load indices use no other variable.
  static bool IsInjective(const BufferStore& store, const BufferLoad& load) {
    std::unordered_set<const ir::VarNode*> vars;
    for (const PrimExpr& idx : store->indices) {
      const auto* v = idx.as<ir::VarNode>();
      if (v == nullptr) return false;
      vars.insert(v);
    }
    for (const PrimExpr& idx : load->indices) {
      if (UsesVar(idx, [&](const ir::VarNode* v) { return !vars.count(v); })) return false;
    }
    return true;
  }

  // Some store index var is absent from the load: the loaded value is reused across it.
  static bool AllowsReuse(const BufferStore& store, const BufferLoad& load) {
    std::unordered_set<const ir::VarNode*> vars;
    for (const PrimExpr& idx : store->indices) {
      const auto* v = idx.as<ir::VarNode>();
      if (v == nullptr) return false;
      vars.insert(v);
    }
    for (const PrimExpr& idx : load->indices) {
      UsesVar(idx, [&](const ir::VarNode* v) {
        vars.erase(v);
        return false;
      });
    }
    return !vars.empty();
  }

  // C[...] = C[...] + A[...] * B[...] (casts allowed) with both operands reused.
  static bool IsMultiplyAdd(const ir::Stmt& body) {
    const auto* store = body.as<ir::BufferStoreNode>();
    if (store == nullptr) return false;
    const auto* add = StripCasts(store->value).as<ir::AddNode>();
    if (add == nullptr) return false;
    const auto* mul = StripCasts(add->b).as<ir::MulNode>();
    const auto* acc = StripCasts(add->a).as<ir::BufferLoadNode>();
    if (mul == nullptr || acc == nullptr || !acc->buffer.same_as(store->buffer) ||
        !SameIndices(acc->indices, store->indices)) {
      return false;
    }
    const auto* lhs = StripCasts(mul->a).as<ir::BufferLoadNode>();
    const auto* rhs = StripCasts(mul->b).as<ir::BufferLoadNode>();
    if (lhs == nullptr || rhs == nullptr) return false;
    BufferStore s = ir::GetRef<BufferStore>(store);
    return AllowsReuse(s, ir::GetRef<BufferLoad>(lhs)) && AllowsReuse(s, ir::GetRef<BufferLoad>(rhs));
  }

  // Every index that uses a reduction var is exactly that var.
  static bool IsPureReduce(const std::vector<const ir::VarNode*>& reduce_vars, const Array<PrimExpr>& indices) {
    for (const PrimExpr& idx : indices) {
      const ir::VarNode* used = nullptr;
      UsesVar(idx, [&](const ir::VarNode* v) {
        if (std::find(reduce_vars.begin(), reduce_vars.end(), v) == reduce_vars.end()) return false;
        used = v;
        return true;
      });
      if (used != nullptr && idx.get() != used) return false;
    }
    return true;
  }

  std::unordered_set<const ir::BufferNode*> param_buffers_;
  BufferStore store_;
  std::vector<BufferLoad> loads_;
  OpPatternKind kind_ = kElemWise;
  bool saw_block_ = false;
};

}  // namespace

OpPatternKind AnalyzeOpPatternKind(const ir::PrimFunc& func) {
  PatternKindAnalyzer analyzer(func);
  analyzer.VisitStmt(func->body);
  return analyzer.result();
}

absl::StatusOr<ir::IRModule> AnnotateTIROpPattern(const ir::IRModule& module) {
  ir::IRModule out = module;
  for (const auto& [gv, func] : module.Functions()) {
    ir::PrimFunc prim = ir::TryDowncast<ir::PrimFunc>(func);
    if (!prim.defined() || prim->attrs.count(ir::String(kOpPatternAttr))) continue;
    prim.CopyOnWrite()->attrs.Set(ir::String(kOpPatternAttr), MakeOpPatternAttr(AnalyzeOpPatternKind(prim)));
    out.Add(gv, prim);
  }
  return out;
}

}  // namespace kiln::relax::transform
