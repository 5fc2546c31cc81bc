// ScheduleGemmStage (schedule_gpu_gemm.h). The stage is rebuilt as plain TIR under the thread
// bindings (no SBlock is left in it): block (bz, by, bx) owns the output tile rows
// [by * kGemmTileM, +kGemmTileM) of M and columns [bx * kGemmTileN, +kGemmTileN) of N for batch
// point bz; for each K step every thread first stores its share of both operand tiles into shared
// memory (zero outside the bounds), a barrier, then accumulates its 4 x 4 outputs from the tiles,
// and a second barrier before the tiles are overwritten. Barriers sit outside any condition, so
// every thread of the block reaches them.
#include "compiler/relax/legalize/schedule_gpu_gemm.h"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/relax/legalize/loops.h"
#include "compiler/relax/legalize/schedule_gpu_stage.h"
#include "compiler/relax/legalize/te.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/transform/ir_utils.h"

namespace kiln::relax::legalize {
namespace {

using namespace ir;  // NOLINT: this file is about IR node types only
using tir::transform::Substitute;
using tir::transform::VarMap;

constexpr int64_t kRegM = kGemmTileM / kGemmThreadsY, kRegN = kGemmTileN / kGemmThreadsX;
constexpr int64_t kThreads = kGemmThreadsX * kGemmThreadsY;
static_assert(kGemmTileM * kGemmTileK % kThreads == 0 && kGemmTileN * kGemmTileK % kThreads == 0,
              "each thread loads a whole number of tile elements");

class LoadCollector : public StmtExprVisitor {
 public:
  std::vector<const BufferLoadNode*> loads;

 private:
  void VisitExpr_(const BufferLoadNode* op) override {
    loads.push_back(op);
    StmtExprVisitor::VisitExpr_(op);
  }
};

// A matched GEMM stage: the reduction stage, and its data-parallel iter vars by role in block
// order.
struct Gemm {
  ReductionStage s;
  std::vector<const IterVarNode*> batch, rows, cols;  // batch, I, J (K is s.reduce)
};

std::optional<Gemm> Match(const Stmt& stage) {
  std::optional<ReductionStage> rs = MatchReductionStage(stage);
  if (!rs) return std::nullopt;
  Gemm g{*std::move(rs), {}, {}, {}};
  const ReductionStage& s = g.s;
  const BufferNode* c = s.store->buffer.get();
  // The spatial vars each operand load uses.
  LoadCollector loads;
  loads.VisitExpr(s.store->value);
  std::vector<VarSet> uses;
  for (const BufferLoadNode* l : loads.loads) {
    if (l->buffer.get() == c) {
      if (!StructuralEqual(l->indices, s.store->indices)) return std::nullopt;
      continue;
    }
    VarSet u = UsesOf(GetRef<PrimExpr>(l), s.all_vars, c).vars;
    VarSet sp;
    bool uses_k = false;
    for (const VarNode* v : u) {
      if (s.spatial_vars.count(v)) {
        sp.insert(v);
      } else {
        uses_k = true;
      }
    }
    if (!uses_k) return std::nullopt;
    uses.push_back(std::move(sp));
  }
  if (uses.empty()) return std::nullopt;
  // Batch: the spatial vars every operand uses, and those none uses (they only index the output).
  VarSet batch;
  for (const VarNode* v : s.spatial_vars) {
    bool in_all = true, in_any = false;
    for (const VarSet& u : uses) {
      in_all &= u.count(v) > 0;
      in_any |= u.count(v) > 0;
    }
    if (in_all || !in_any) batch.insert(v);
  }
  std::vector<VarSet> groups;
  for (const VarSet& u : uses) {
    VarSet rest;
    for (const VarNode* v : u) {
      if (!batch.count(v)) rest.insert(v);
    }
    if (std::find(groups.begin(), groups.end(), rest) == groups.end()) groups.push_back(std::move(rest));
  }
  if (groups.size() != 2 || groups[0].empty() || groups[1].empty()) return std::nullopt;
  for (const VarNode* v : groups[0]) {
    if (groups[1].count(v)) return std::nullopt;
  }
  // J: the group of the output's last index (its stores are then the coalesced ones).
  const auto* last = s.store->indices.empty() ? nullptr : s.store->indices.back().as<VarNode>();
  if (last != nullptr && groups[0].count(last)) std::swap(groups[0], groups[1]);
  for (const IterVarNode* iv : s.spatial) {
    const VarNode* v = iv->var.get();
    if (batch.count(v)) {
      g.batch.push_back(iv);
    } else if (groups[0].count(v)) {
      g.rows.push_back(iv);
    } else {
      g.cols.push_back(iv);
    }
  }
  return g;
}

// Replaces, in the block's update, the load of the output by the accumulator and each maximal
// load-bearing subexpression of one operand side by a read of a shared tile made for it.
class TileRewriter : public StmtExprMutator {
 public:
  TileRewriter(const VarSet& all, const VarSet& a_side, const VarSet& b_side, const BufferNode* c, PrimExpr acc_read,
               PrimExpr kk, PrimExpr row, PrimExpr col)
      : all_(all), a_side_(a_side), b_side_(b_side), c_(c), acc_read_(std::move(acc_read)), kk_(std::move(kk)),
        row_(std::move(row)), col_(std::move(col)) {}

  struct Tile {
    Buffer buffer;
    PrimExpr value;  // in the block's iter vars
    bool a_side;
  };
  std::vector<Tile> tiles;

  PrimExpr VisitExpr(const PrimExpr& e) override {
    VarUses u = UsesOf(e, all_, c_);
    if (u.loads && !u.loads_c) {
      bool a = Subset(u.vars, a_side_);
      if (a || Subset(u.vars, b_side_)) {
        // The A tile is [K, M + 1]: the padding column keeps a column of stores off one bank.
        std::vector<PrimExpr> shape = {Int64(kGemmTileK), Int64(a ? kGemmTileM + 1 : kGemmTileN)};
        Buffer b = Buffer::Make(absl::StrCat(a ? "A" : "B", "_shared", tiles.size()), shape, e.dtype(), "shared");
        tiles.push_back({b, e, a});
        return Load(b, {kk_, a ? row_ : col_});
      }
    }
    return StmtExprMutator::VisitExpr(e);
  }

 private:
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    if (op->buffer.get() == c_) return acc_read_;
    return StmtExprMutator::VisitExpr_(op);
  }

  const VarSet &all_, &a_side_, &b_side_;
  const BufferNode* c_;
  PrimExpr acc_read_, kk_, row_, col_;
};

// `e` guarded by `cond` (no guard when cond is undefined), as a value: zero outside.
PrimExpr Guarded(const PrimExpr& cond, const PrimExpr& e) {
  return cond.defined() ? Intrin("if_then_else", e.dtype(), {cond, e, Const(e.dtype(), 0)}) : e;
}

}  // namespace

std::optional<Stmt> ScheduleGemmStage(const Stmt& stage) {
  std::optional<Gemm> m = Match(stage);
  if (!m) return std::nullopt;
  const Gemm& g = *m;
  const ReductionStage& st = g.s;
  PrimExpr M = Product(g.rows, st), N = Product(g.cols, st), K = Product(st.reduce, st), nb = Product(g.batch, st);
  constexpr int64_t kLarge = int64_t{1} << 40;
  if (ConstOr(Times(M, N), kLarge) < 256 || ConstOr(K, kLarge) < 8) return std::nullopt;

  VarSet all, a_side, b_side;
  for (const auto* group : {&g.batch, &g.rows, &g.cols, &st.reduce}) {
    for (const IterVarNode* iv : *group) {
      all.insert(iv->var.get());
      if (group != &g.cols) a_side.insert(iv->var.get());
      if (group != &g.rows) b_side.insert(iv->var.get());
    }
  }
  Var bz("bz", DataType::Int(64)), by("by", DataType::Int(64)), bx("bx", DataType::Int(64));
  Var ty("ty", DataType::Int(64)), tx("tx", DataType::Int(64));
  Var ko("ko", DataType::Int(64)), kk("kk", DataType::Int(64)), a("a", DataType::Int(64)), b("b", DataType::Int(64));
  Var l("l", DataType::Int(64));
  const DataType dt = st.store->buffer->dtype;
  Buffer acc = Buffer::Make("acc", {Int64(kRegM * kRegN)}, dt, "local");
  PrimExpr acc_at = Plus(Times(a, Int64(kRegN)), b);
  PrimExpr row = Plus(ty, Times(a, Int64(kGemmThreadsY))), col = Plus(tx, Times(b, Int64(kGemmThreadsX)));
  PrimExpr i0 = Times(by, Int64(kGemmTileM)), j0 = Times(bx, Int64(kGemmTileN)), k0 = Times(ko, Int64(kGemmTileK));

  TileRewriter rw(all, a_side, b_side, st.store->buffer.get(), Load(acc, {acc_at}), kk, row, col);
  PrimExpr update = rw.VisitExpr(st.store->value);

  // The iter vars at (row, col, kk) of this thread's register tile and K step.
  VarMap at;
  Bind(g.batch, st, bz, &at);
  Bind(g.rows, st, Plus(i0, row), &at);
  Bind(g.cols, st, Plus(j0, col), &at);
  Bind(st.reduce, st, Plus(k0, kk), &at);
  auto unrolled = [&](const Var& v, int64_t n, Stmt body) { return Serial(v, Int64(n), ForKind::kUnrolled, body); };
  auto each_output = [&](Stmt body) { return unrolled(a, kRegM, unrolled(b, kRegN, std::move(body))); };

  Stmt init = each_output(Store(acc, Substitute(st.init->value, at), {acc_at}));

  // Tile loads: thread t stores elements t, t + kThreads, ... of each tile, K-fastest for A (a
  // row of A is contiguous along K in a row-major matmul) and N-fastest for B.
  PrimExpr t = Plus(Times(ty, Int64(kGemmThreadsX)), tx);
  PrimExpr flat = Plus(Times(l, Int64(kThreads)), t);
  std::vector<Stmt> loads;
  for (const TileRewriter::Tile& tile : rw.tiles) {
    int64_t other = tile.a_side ? kGemmTileM : kGemmTileN;
    PrimExpr kc = tile.a_side ? PrimExpr(FloorMod(flat, Int64(kGemmTileK))) : PrimExpr(FloorDiv(flat, Int64(other)));
    PrimExpr oc = tile.a_side ? PrimExpr(FloorDiv(flat, Int64(kGemmTileK))) : PrimExpr(FloorMod(flat, Int64(other)));
    VarMap sub;
    Bind(g.batch, st, bz, &sub);
    Bind(tile.a_side ? g.rows : g.cols, st, Plus(tile.a_side ? i0 : j0, oc), &sub);
    Bind(st.reduce, st, Plus(k0, kc), &sub);
    PrimExpr inside = AndMaybe(Below(Plus(tile.a_side ? i0 : j0, oc), tile.a_side ? M : N, other),
                               Below(Plus(k0, kc), K, kGemmTileK));
    Stmt store = Store(tile.buffer, Guarded(inside, Substitute(tile.value, sub)), {kc, oc});
    loads.push_back(unrolled(l, other * kGemmTileK / kThreads, store));
  }
  loads.push_back(SharedSync());
  Stmt step = each_output(Store(acc, Substitute(update, at), {acc_at}));
  PrimExpr k_inside = Below(Plus(k0, kk), K, kGemmTileK);
  if (k_inside.defined()) step = ir::IfThenElse(k_inside, step);
  loads.push_back(Serial(kk, Int64(kGemmTileK), ForKind::kSerial, step));
  loads.push_back(SharedSync());
  Stmt k_loop = Serial(ko, CeilDivBy(K, kGemmTileK), ForKind::kSerial, Seq(loads));

  std::vector<PrimExpr> out_idx;
  for (const PrimExpr& e : st.store->indices) out_idx.push_back(Substitute(e, at));
  Stmt write = BufferStore(st.store->buffer, Load(acc, {acc_at}), Array<PrimExpr>(out_idx));
  PrimExpr out_inside = AndMaybe(Below(Plus(i0, row), M, kGemmTileM), Below(Plus(j0, col), N, kGemmTileN));
  if (out_inside.defined()) write = ir::IfThenElse(out_inside, write);

  Stmt body = Seq({init, k_loop, each_output(write)});
  body = Allocate(acc, body);
  for (size_t i = rw.tiles.size(); i-- > 0;) body = Allocate(rw.tiles[i].buffer, body);
  body = ThreadLoop(tx, Int64(kGemmThreadsX), "threadIdx.x", body);
  body = ThreadLoop(ty, Int64(kGemmThreadsY), "threadIdx.y", body);
  body = ThreadLoop(bx, CeilDivBy(N, kGemmTileN), "blockIdx.x", body);
  body = ThreadLoop(by, CeilDivBy(M, kGemmTileM), "blockIdx.y", body);
  if (!IsConst(nb, 1)) body = ThreadLoop(bz, nb, "blockIdx.z", body);
  return body;
}

}  // namespace kiln::relax::legalize
