// ScheduleDefaultCPU (schedule.h): fuse + parallelize the outer data-parallel loops of each stage,
// split + vectorize the innermost contiguous one. The rewrite only changes the loops around an
// SBlockRealize and its iter_values (the block keeps its iter vars), so LowerSBlocks, the verifier
// and FuseTIR's view of the block are unaffected; the TIR pipeline's VectorizeLoops then turns the
// T.vectorized chunks into vector code (it needs a constant extent and a body of plain stores,
// hence the separate tail instead of a guarded last chunk).
#include "compiler/relax/legalize/schedule.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "compiler/relax/legalize/loops.h"
#include "compiler/tir/analysis/free_vars.h"
#include "compiler/tir/transform/ir_utils.h"

namespace kiln::relax::legalize {
namespace {

using namespace ir;  // NOLINT: this file is about IR node types only
using tir::transform::Substitute;
using tir::transform::VarMap;

constexpr int kVectorBytes = 64;  // one AVX-512 register, two AVX2 ones
// Stages of fewer iterations than this (all loops together, constant extents) stay on the calling
// thread: waking the pool's threads and waiting for them costs microseconds, more than the whole
// stage (the bias, activation and softmax kernels of a small-batch model).
constexpr int64_t kParallelWork = int64_t{1} << 16;

// A stage: loops (outermost first) perfectly nested around one block realize.
struct Nest {
  std::vector<const ForNode*> loops;
  const SBlockRealizeNode* realize = nullptr;
  // Per loop: the iter vars bound to it (their iter_value is exactly the loop var).
  std::vector<std::vector<const IterVarNode*>> bound;
};

bool PlainLoop(const ForNode* f) {
  return f->kind == ForKind::kSerial && IsConst(f->min, 0) && !f->step.defined() && f->annotations.empty() &&
         !f->thread_binding.defined();
}

std::optional<Nest> MatchNest(const Stmt& s) {
  Nest n;
  Stmt cur = s;
  while (const auto* f = cur.as<ForNode>()) {
    if (!PlainLoop(f)) return std::nullopt;
    n.loops.push_back(f);
    cur = f->body;
  }
  n.realize = cur.as<SBlockRealizeNode>();
  if (n.realize == nullptr || n.loops.empty()) return std::nullopt;
  n.bound.resize(n.loops.size());
  const SBlockNode* block = n.realize->block.get();
  if (block->iter_vars.size() != n.realize->iter_values.size()) return std::nullopt;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const PrimExpr& v = n.realize->iter_values[i];
    if (v.as<IntImmNode>() != nullptr) continue;
    size_t l = 0;
    while (l < n.loops.size() && !v.same_as(n.loops[l]->loop_var)) ++l;
    if (l == n.loops.size()) return std::nullopt;  // not a plain remap: already scheduled
    n.bound[l].push_back(block->iter_vars[i].get());
  }
  // Rectangular nests only: no extent depends on a loop variable.
  for (const ForNode* f : n.loops) {
    for (const Var& v : tir::FreeVars(Evaluate(f->extent))) {
      for (const ForNode* g : n.loops) {
        if (v.same_as(g->loop_var)) return std::nullopt;
      }
    }
  }
  return n;
}

bool DataParallel(const Nest& n, size_t l) {
  if (n.bound[l].empty()) return false;  // a loop the block ignores repeats it: not independent
  for (const IterVarNode* iv : n.bound[l]) {
    if (iv->iter_type != IterVarType::kDataPar) return false;
  }
  return true;
}

// A block that is one store (no init, allocations or matches), which can be duplicated for a tail.
const BufferStoreNode* SingleStore(const SBlockNode* b) {
  if (b->init.defined() || !b->alloc_buffers.empty() || !b->match_buffers.empty()) return nullptr;
  return b->body.as<BufferStoreNode>();
}

// A copy of `b` with fresh iter vars (so it can sit next to `b`), named name + suffix.
SBlock FreshBlock(const SBlockNode* b, const std::string& suffix) {
  VarMap map;
  auto n = make_object<SBlockNode>();
  for (const IterVar& iv : b->iter_vars) {
    Var v(iv->var->name, iv->var.dtype());
    map[iv->var.get()] = v;
    n->iter_vars.push_back(IterVar(iv->dom, v, iv->iter_type, iv->thread_tag));
  }
  auto regions = [&](const Array<BufferRegion>& rs) {
    Array<BufferRegion> out;
    for (const BufferRegion& r : rs) {
      Array<Range> ranges;
      for (const Range& rg : r->region) ranges.push_back(Range(Substitute(rg->min, map), Substitute(rg->extent, map)));
      out.push_back(BufferRegion(r->buffer, ranges));
    }
    return out;
  };
  n->reads = regions(b->reads);
  n->writes = regions(b->writes);
  n->name = b->name + suffix;
  n->body = Substitute(b->body, map);
  n->annotations = b->annotations;
  return SBlock(ObjectPtr<Object>(std::move(n)));
}

Stmt Realize(const SBlockRealizeNode* r, const SBlock& block, const VarMap& sub) {
  Array<PrimExpr> values;
  for (const PrimExpr& v : r->iter_values) values.push_back(Substitute(v, sub));
  return SBlockRealize(values, Substitute(r->predicate, sub), block);
}

// The scheduled stage, or nullopt to keep it.
std::optional<Stmt> ScheduleNest(const Nest& n) {
  const size_t depth = n.loops.size();
  const SBlockNode* block = n.realize->block.get();
  bool all_parallel = true;
  for (size_t l = 0; l < depth; ++l) all_parallel &= DataParallel(n, l);

  // The loop to vectorize: the innermost, when every loop is data-parallel and it indexes the last
  // dim of the stored buffer (contiguous stores).
  const ForNode* vec = nullptr;
  int lanes = 0;
  if (all_parallel) {
    const ForNode* inner = n.loops.back();
    const BufferStoreNode* store = block->body.as<BufferStoreNode>();
    if (store != nullptr && !store->indices.empty()) {
      for (const IterVarNode* iv : n.bound.back()) {
        if (store->indices.back().same_as(iv->var)) vec = inner;
      }
      int bytes = std::max(1, store->buffer->dtype.bytes());
      lanes = std::max(4, kVectorBytes / bytes);
    }
    if (vec != nullptr) {
      int64_t e = ConstOr(vec->extent, -1);
      bool fits = e >= 0 && e <= lanes;
      bool exact = e >= 0 && e % lanes == 0;
      if (fits) lanes = static_cast<int>(e);
      if (!fits && !exact && SingleStore(block) == nullptr) vec = nullptr;  // no tail copy possible
      if (vec != nullptr && lanes < 2) vec = nullptr;
    }
  }
  // Leading data-parallel loops (not the vectorized one) fuse into the parallel loop.
  size_t fused = 0;
  while (fused < depth && DataParallel(n, fused) && n.loops[fused] != vec) ++fused;
  if (fused == 0 && vec == nullptr) return std::nullopt;
  int64_t work = 1;
  for (const ForNode* f : n.loops) {
    int64_t e = ConstOr(f->extent, -1);
    work = e < 0 ? kParallelWork : std::min(kParallelWork, work * std::min(e, kParallelWork));
  }
  const ForKind par_kind = work < kParallelWork ? ForKind::kSerial : ForKind::kParallel;

  VarMap sub;
  Var par("fused", DataType::Int(64));
  PrimExpr par_extent = Int64(1);
  for (size_t l = 0; l < fused; ++l) par_extent = Times(par_extent, n.loops[l]->extent);
  if (fused == 1) {
    sub[n.loops[0]->loop_var.get()] = par;
  } else if (fused > 1) {
    PrimExpr stride = Int64(1);
    for (size_t l = fused; l-- > 0;) {
      PrimExpr q = ConstOr(stride, 0) == 1 ? PrimExpr(par) : PrimExpr(FloorDiv(par, stride));
      sub[n.loops[l]->loop_var.get()] = l == 0 ? q : PrimExpr(FloorMod(q, n.loops[l]->extent));
      stride = Times(stride, n.loops[l]->extent);
    }
  }

  // Inside out: the innermost loop (vectorized, or as it was), then the middle loops as they were.
  Stmt body;
  size_t middle_end = depth;
  if (vec != nullptr) {
    middle_end = depth - 1;
    const Var& v = vec->loop_var;
    int64_t e = ConstOr(vec->extent, -1);
    if (e >= 0 && e <= lanes) {
      body = For(v, Int64(0), vec->extent, ForKind::kVectorized, Realize(n.realize, n.realize->block, sub));
    } else {
      // Chunks of `lanes` (the parallel loop when there is no other), then the serial tail.
      PrimExpr chunks = FloorDivBy(vec->extent, lanes), done = Times(chunks, Int64(lanes));
      Var vo(v->name + "_o", DataType::Int(64)), vi(v->name + "_v", DataType::Int(64));
      VarMap main = sub;
      main[v.get()] = Plus(Times(vo, Int64(lanes)), vi);
      Stmt chunk = For(vi, Int64(0), Int64(lanes), ForKind::kVectorized, Realize(n.realize, n.realize->block, main));
      Stmt main_loop = For(vo, Int64(0), chunks, depth == 1 ? par_kind : ForKind::kSerial, chunk);
      Stmt tail;
      if (!(e >= 0 && e % lanes == 0)) {
        Var vt(v->name + "_t", DataType::Int(64));
        VarMap rest = sub;
        rest[v.get()] = Plus(done, vt);
        tail = For(vt, Int64(0), Minus(vec->extent, done), ForKind::kSerial,
                   Realize(n.realize, FreshBlock(block, "_tail"), rest));
      }
      body = Seq({main_loop, tail});
    }
  } else {
    body = Realize(n.realize, n.realize->block, sub);
  }
  for (size_t l = middle_end; l-- > fused;) {
    const ForNode* f = n.loops[l];
    body = For(f->loop_var, f->min, f->extent, f->kind, body, IterVar(), f->annotations);
  }
  if (fused > 0) {
    body = For(par, Int64(0), par_extent, IsConst(par_extent, 1) ? ForKind::kSerial : par_kind, body);
  }
  return body;
}

// The root block's statements, each stage scheduled.
Stmt ScheduleStages(const Stmt& s, bool* changed) {
  if (const auto* seq = s.as<SeqStmtNode>()) {
    std::vector<Stmt> out;
    for (const Stmt& x : seq->seq) out.push_back(ScheduleStages(x, changed));
    return SeqStmt::Flatten(out);
  }
  std::optional<Nest> n = MatchNest(s);
  if (!n) return s;
  std::optional<Stmt> r = ScheduleNest(*n);
  if (!r) return s;
  *changed = true;
  return *r;
}

std::optional<PrimFunc> ScheduleFunc(const PrimFunc& f) {
  auto flag = [&](const char* key) {
    const auto* v = f->attrs.count(String(key)) ? f->attrs.Get(String(key)).as<IntImmNode>() : nullptr;
    return v != nullptr && v->value != 0;
  };
  if (!flag("s_tir") || flag(kScheduledAttr)) return std::nullopt;
  const auto* root_realize = f->body.as<SBlockRealizeNode>();
  if (root_realize == nullptr || !root_realize->block->iter_vars.empty()) return std::nullopt;
  const SBlockNode* root = root_realize->block.get();
  bool changed = false;
  Stmt body = ScheduleStages(root->body, &changed);
  Map<String, ObjectRef> attrs = f->attrs;
  attrs.Set(String(kScheduledAttr), IntImm(DataType::Bool(), 1));
  if (!changed) return PrimFunc(f->params, f->body, f->ret_type, f->buffer_map, attrs, f->span);
  return WithRootBody(f, root_realize, body, attrs);
}

}  // namespace

absl::StatusOr<IRModule> ScheduleDefaultCPU(const IRModule& module) {
  return ScheduleEachPrimFunc(module, ScheduleFunc);
}

}  // namespace kiln::relax::legalize
