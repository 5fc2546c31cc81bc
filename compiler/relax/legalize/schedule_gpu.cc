// ScheduleDefaultGPU (schedule_gpu.h). Like ScheduleDefaultCPU, the rewrite only changes the loops
// around an SBlockRealize and its iter_values (the block keeps its iter vars), so LowerSBlocks and
// the verifier see an ordinary s_tir function; SplitHostDevice then outlines each thread-bound
// stage into a kernel.
#include "compiler/relax/legalize/schedule_gpu.h"

#include <optional>
#include <utility>
#include <vector>

#include "compiler/tir/functor.h"
#include "compiler/relax/legalize/loops.h"
#include "compiler/relax/legalize/schedule_gpu_gemm.h"
#include "compiler/relax/legalize/schedule_gpu_gemm_mma.h"
#include "compiler/relax/legalize/schedule_gpu_gemm_wgmma.h"
#include "compiler/relax/legalize/schedule_gpu_reduce.h"
#include "compiler/tir/analysis/free_vars.h"
#include "compiler/tir/transform/ir_utils.h"

namespace kiln::relax::legalize {
namespace {

using namespace ir;  // NOLINT: this file is about IR node types only
using tir::transform::Substitute;
using tir::transform::VarMap;

// The leading loops of a stage that are bound only to data-parallel iter vars of its one block,
// and the rest of the stage below them.
struct SpatialPrefix {
  std::vector<const ForNode*> loops;
  Stmt rest;  // the first non-fused loop (or the block realize)
};

bool PlainLoop(const ForNode* f) {
  return f->kind == ForKind::kSerial && IsConst(f->min, 0) && !f->step.defined() && f->annotations.empty() &&
         !f->thread_binding.defined();
}

bool UsesVar(const PrimExpr& e, const VarNode* v) {
  for (const Var& x : tir::FreeVars(Evaluate(e))) {
    if (x.get() == v) return true;
  }
  return false;
}

std::optional<SpatialPrefix> MatchSpatialPrefix(const Stmt& s) {
  std::vector<const ForNode*> loops;
  Stmt cur = s;
  while (const auto* f = cur.as<ForNode>()) {
    if (!PlainLoop(f)) return std::nullopt;
    loops.push_back(f);
    cur = f->body;
  }
  const auto* realize = cur.as<SBlockRealizeNode>();
  if (realize == nullptr || loops.empty()) return std::nullopt;
  const SBlockNode* block = realize->block.get();
  if (block->iter_vars.size() != realize->iter_values.size()) return std::nullopt;
  SpatialPrefix p;
  for (const ForNode* f : loops) {
    // Fusable: the loop is some data-parallel iter var's value exactly, no other iter value uses
    // it, and no extent of the nest depends on it.
    bool bound_spatial = false, other_use = false;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      const PrimExpr& v = realize->iter_values[i];
      if (v.same_as(f->loop_var) && block->iter_vars[i]->iter_type == IterVarType::kDataPar) {
        bound_spatial = true;
      } else if (UsesVar(v, f->loop_var.get())) {
        other_use = true;
      }
    }
    for (const ForNode* g : loops) other_use |= UsesVar(g->extent, f->loop_var.get());
    if (!bound_spatial || other_use) break;
    p.loops.push_back(f);
  }
  if (p.loops.empty()) return std::nullopt;
  p.rest = p.loops.size() < loops.size() ? GetRef<Stmt>(loops[p.loops.size()]) : GetRef<Stmt>(realize);
  return p;
}

// `body` under blockIdx.x (extent `blocks`) and threadIdx.x (extent `threads`); `bx`/`tx` are
// the loop variables.
Stmt BindThreads(const Var& bx, PrimExpr blocks, const Var& tx, PrimExpr threads, Stmt body) {
  Stmt inner = For(tx, Int64(0), threads, ForKind::kThreadBinding, std::move(body),
                   IterVar(Range(Int64(0), threads), tx, IterVarType::kThreadIndex, "threadIdx.x"));
  return For(bx, Int64(0), blocks, ForKind::kThreadBinding, inner,
             IterVar(Range(Int64(0), blocks), bx, IterVarType::kThreadIndex, "blockIdx.x"));
}

// What the target offers the schedules (the module attributes of schedule_gpu.h).
struct Features {
  bool warp_shuffle = false, tensor_cores = false, wgmma = false;
};

Stmt ScheduleStage(const Stmt& s, const Features& features) {
  if (features.wgmma) {
    if (std::optional<Stmt> w = ScheduleGemmWgmmaStage(s)) return *w;
  }
  if (features.tensor_cores) {
    if (std::optional<Stmt> mma = ScheduleGemmMmaStage(s)) return *mma;
  }
  if (std::optional<Stmt> gemm = ScheduleGemmStage(s)) return *gemm;
  if (std::optional<Stmt> reduction = ScheduleReductionStage(s, features.warp_shuffle)) return *reduction;
  Var bx("bx", DataType::Int(64)), tx("tx", DataType::Int(64));
  std::optional<SpatialPrefix> p = MatchSpatialPrefix(s);
  if (!p) return BindThreads(bx, Int64(1), tx, Int64(1), s);
  PrimExpr n = Int64(1);
  for (const ForNode* f : p->loops) n = Times(n, f->extent);
  int64_t const_n = ConstOr(n, -1);
  int64_t block = const_n >= 1 && const_n < kDefaultGPUBlockSize ? const_n : kDefaultGPUBlockSize;
  PrimExpr fused = Plus(Times(bx, Int64(block)), tx);
  VarMap sub;
  PrimExpr stride = Int64(1);
  for (size_t l = p->loops.size(); l-- > 0;) {
    PrimExpr q = ConstOr(stride, 0) == 1 ? fused : PrimExpr(FloorDiv(fused, stride));
    sub[p->loops[l]->loop_var.get()] = l == 0 ? q : PrimExpr(FloorMod(q, p->loops[l]->extent));
    stride = Times(stride, p->loops[l]->extent);
  }
  Stmt body = Substitute(p->rest, sub);
  if (!(const_n >= 0 && const_n % block == 0)) body = ir::IfThenElse(LT(fused, n), body);
  return BindThreads(bx, CeilDivBy(n, block), tx, Int64(block), body);
}

class ThreadBindingFinder : public StmtExprVisitor {
 public:
  bool found = false;

 private:
  void VisitStmt_(const ForNode* op) override {
    found |= op->kind == ForKind::kThreadBinding;
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AttrStmtNode* op) override {
    found |= op->attr_key == "thread_extent";
    StmtExprVisitor::VisitStmt_(op);
  }
};

bool BindsThreads(const Stmt& s) {
  ThreadBindingFinder finder;
  finder.VisitStmt(s);
  return finder.found;
}

std::optional<PrimFunc> ScheduleFunc(const PrimFunc& f, const Features& features) {
  auto flag = [&](const char* key) {
    const auto* v = f->attrs.count(String(key)) ? f->attrs.Get(String(key)).as<IntImmNode>() : nullptr;
    return v != nullptr && v->value != 0;
  };
  if (flag(kScheduledAttr) || flag("tir.is_host_func") || BindsThreads(f->body)) return std::nullopt;
  Map<String, ObjectRef> attrs = f->attrs;
  attrs.Set(String(kScheduledAttr), IntImm(DataType::Bool(), 1));
  const auto* root_realize = f->body.as<SBlockRealizeNode>();
  if (!flag("s_tir") || root_realize == nullptr || !root_realize->block->iter_vars.empty()) {
    // Plain TIR says nothing about which loops are independent: one thread runs it all.
    Var bx("bx", DataType::Int(64)), tx("tx", DataType::Int(64));
    return PrimFunc(f->params, BindThreads(bx, Int64(1), tx, Int64(1), f->body), f->ret_type, f->buffer_map, attrs,
                    f->span);
  }
  const SBlockNode* root = root_realize->block.get();
  std::vector<Stmt> stages;
  if (const auto* seq = root->body.as<SeqStmtNode>()) {
    for (const Stmt& x : seq->seq) stages.push_back(ScheduleStage(x, features));
  } else {
    stages.push_back(ScheduleStage(root->body, features));
  }
  return WithRootBody(f, root_realize, SeqStmt::Flatten(stages), attrs);
}

}  // namespace

absl::StatusOr<IRModule> ScheduleDefaultGPU(const IRModule& module) {
  auto flag = [&](const char* key) {
    const auto* v = module->attrs.count(String(key)) ? module->attrs.Get(String(key)).as<IntImmNode>() : nullptr;
    return v != nullptr && v->value != 0;
  };
  const Features features{flag(kGPUWarpShuffleAttr), flag(kGPUTensorCoreAttr), flag(kGPUWgmmaAttr)};
  return ScheduleEachPrimFunc(module, [&](const PrimFunc& f) { return ScheduleFunc(f, features); });
}

}  // namespace kiln::relax::legalize
