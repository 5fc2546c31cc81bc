// The stage matcher and builders shared by the GPU stage schedules (schedule_gpu_stage.h).
#include "compiler/relax/legalize/schedule_gpu_stage.h"

#include <utility>

#include "compiler/ir/structural.h"
#include "compiler/relax/legalize/loops.h"
#include "compiler/relax/legalize/te.h"
#include "compiler/tir/functor.h"

namespace kiln::relax::legalize {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

class UsesVisitor : public StmtExprVisitor {
 public:
  UsesVisitor(const VarSet& of, const BufferNode* c) : of_(of), c_(c) {}
  VarUses uses;

 private:
  void VisitExpr_(const VarNode* op) override {
    if (of_.count(op)) uses.vars.insert(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    uses.loads = true;
    uses.loads_c |= op->buffer.get() == c_;
    StmtExprVisitor::VisitExpr_(op);
  }
  const VarSet& of_;
  const BufferNode* c_;
};

bool PlainLoop(const ForNode* f) {
  return f->kind == ForKind::kSerial && IsConst(f->min, 0) && !f->step.defined() && f->annotations.empty() &&
         !f->thread_binding.defined();
}

}  // namespace

VarUses UsesOf(const PrimExpr& e, const VarSet& of, const BufferNode* c) {
  UsesVisitor v(of, c);
  v.VisitExpr(e);
  return v.uses;
}

bool Subset(const VarSet& a, const VarSet& b) {
  for (const VarNode* v : a) {
    if (!b.count(v)) return false;
  }
  return true;
}

std::optional<ReductionStage> MatchReductionStage(const Stmt& stage) {
  std::unordered_map<const VarNode*, PrimExpr> loop_extent;
  Stmt cur = stage;
  while (const auto* f = cur.as<ForNode>()) {
    if (!PlainLoop(f)) return std::nullopt;
    loop_extent[f->loop_var.get()] = f->extent;
    cur = f->body;
  }
  const auto* realize = cur.as<SBlockRealizeNode>();
  if (realize == nullptr || (realize->predicate.defined() && !IsConst(realize->predicate, 1))) return std::nullopt;
  ReductionStage s;
  s.block = realize->block.get();
  const SBlockNode* block = s.block;
  if (!block->alloc_buffers.empty() || !block->match_buffers.empty() || !block->init.defined() ||
      block->iter_vars.size() != realize->iter_values.size() || block->iter_vars.size() != loop_extent.size()) {
    return std::nullopt;
  }
  VarSet bound_loops;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVarNode* iv = block->iter_vars[i].get();
    const auto* lv = realize->iter_values[i].as<VarNode>();
    if (lv == nullptr || !loop_extent.count(lv) || !bound_loops.insert(lv).second) return std::nullopt;
    if (iv->dom.defined() && !IsConst(iv->dom->min, 0)) return std::nullopt;
    s.extent[iv->var.get()] = loop_extent[lv];
    if (iv->iter_type == IterVarType::kDataPar) {
      s.spatial.push_back(iv);
      s.spatial_vars.insert(iv->var.get());
    } else if (iv->iter_type == IterVarType::kCommReduce) {
      s.reduce.push_back(iv);
      s.reduce_vars.insert(iv->var.get());
    } else {
      return std::nullopt;
    }
    s.all_vars.insert(iv->var.get());
  }
  s.store = block->body.as<BufferStoreNode>();
  s.init = block->init.as<BufferStoreNode>();
  if (s.reduce.empty() || s.store == nullptr || s.init == nullptr || !s.store->buffer.same_as(s.init->buffer) ||
      !StructuralEqual(s.store->indices, s.init->indices)) {
    return std::nullopt;
  }
  const BufferNode* c = s.store->buffer.get();
  for (const PrimExpr& idx : s.store->indices) {
    if (!Subset(UsesOf(idx, s.all_vars, c).vars, s.spatial_vars)) return std::nullopt;
  }
  VarUses init = UsesOf(s.init->value, s.all_vars, c);
  if (init.loads || !Subset(init.vars, s.spatial_vars)) return std::nullopt;
  return s;
}

PrimExpr Product(const std::vector<const IterVarNode*>& ivs, const ReductionStage& s) {
  PrimExpr p = Int64(1);
  for (const IterVarNode* iv : ivs) p = Times(p, s.extent.at(iv->var.get()));
  return p;
}

void Bind(const std::vector<const IterVarNode*>& ivs, const ReductionStage& s, const PrimExpr& flat,
          tir::transform::VarMap* sub) {
  std::vector<PrimExpr> shape;
  for (const IterVarNode* iv : ivs) shape.push_back(s.extent.at(iv->var.get()));
  Indices idx = Unravel(flat, shape);
  for (size_t i = 0; i < ivs.size(); ++i) (*sub)[ivs[i]->var.get()] = idx[i];
}

Stmt ThreadLoop(const Var& v, const PrimExpr& extent, const char* tag, Stmt body) {
  return For(v, Int64(0), extent, ForKind::kThreadBinding, std::move(body),
             IterVar(Range(Int64(0), extent), v, IterVarType::kThreadIndex, tag));
}

Stmt Serial(const Var& v, const PrimExpr& extent, ForKind kind, Stmt body) {
  return For(v, Int64(0), extent, kind, std::move(body));
}

Stmt SharedSync() { return Evaluate(Intrin("tvm_storage_sync", DataType::Int(32), {StringImm("shared")})); }

PrimExpr Below(const PrimExpr& x, const PrimExpr& n, int64_t tile) {
  int64_t c = ConstOr(n, -1);
  if (c >= 0 && c % tile == 0) return PrimExpr();
  return LT(x, n);
}

PrimExpr AndMaybe(const PrimExpr& a, const PrimExpr& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return And(a, b);
}

}  // namespace kiln::relax::legalize
