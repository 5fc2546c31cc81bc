// ScheduleGemmStage (schedule_gpu_gemm.h). The stage is rebuilt as plain TIR under the thread
// bindings (no SBlock is left in it): block (bz, by, bx) owns the output tile rows
// [by * tile_m, +tile_m) of M and columns [bx * tile_n, +tile_n) of N for batch point bz; for each
// K step every thread stores its share of both operand tiles into shared memory (zero outside the
// bounds), a barrier, then for each k of the step reads its A and B values from the tiles into
// registers and accumulates its register tile from them. The loops over a thread's own elements
// and over the k of a step are unrolled here, in the TIR, so that the accumulators are registers
// on every backend whether or not its compiler unrolls. Barriers sit outside any condition, so
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
// load-bearing subexpression of one operand side by a read of a register fragment made for it (one
// shared tile per fragment).
class TileRewriter : public StmtExprMutator {
 public:
  TileRewriter(const GemmConfig& cfg, const VarSet& all, const VarSet& a_side, const VarSet& b_side,
               const BufferNode* c, PrimExpr acc_read, PrimExpr a, PrimExpr b)
      : cfg_(cfg), all_(all), a_side_(a_side), b_side_(b_side), c_(c), acc_read_(std::move(acc_read)),
        a_(std::move(a)), b_(std::move(b)) {}

  struct Tile {
    Buffer shared;  // [stages, tile_k, tile_m + a_pad] (A side) or [stages, tile_k, tile_n]
    Buffer frag;    // this thread's values for one k
    PrimExpr value;  // in the block's iter vars
    bool a_side;
  };
  std::vector<Tile> tiles;

  PrimExpr VisitExpr(const PrimExpr& e) override {
    VarUses u = UsesOf(e, all_, c_);
    if (u.loads && !u.loads_c) {
      bool a = Subset(u.vars, a_side_);
      if (a || Subset(u.vars, b_side_)) {
        // The padding of the A tile spreads the transposing stores over the banks.
        std::vector<PrimExpr> shape = {Int64(cfg_.double_buffer ? 2 : 1), Int64(cfg_.tile_k),
                                       Int64(a ? cfg_.tile_m + cfg_.a_pad : cfg_.tile_n)};
        std::string n = absl::StrCat(a ? "A" : "B", tiles.size());
        Buffer sh = Buffer::Make(n + "_shared", shape, e.dtype(), "shared");
        int64_t regs = a ? cfg_.tile_m / cfg_.threads_y : cfg_.tile_n / cfg_.threads_x;
        Buffer frag = Buffer::Make(n + "_frag", {Int64(regs)}, e.dtype(), "local");
        tiles.push_back({sh, frag, e, a});
        return Load(frag, {a ? a_ : b_});
      }
    }
    return StmtExprMutator::VisitExpr(e);
  }

 private:
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    if (op->buffer.get() == c_) return acc_read_;
    return StmtExprMutator::VisitExpr_(op);
  }

  const GemmConfig& cfg_;
  const VarSet &all_, &a_side_, &b_side_;
  const BufferNode* c_;
  PrimExpr acc_read_, a_, b_;
};

// An update C[...] = C[...] + x * y (either order of the sum) in a float type, x and y not reading C.
struct MulAcc {
  PrimExpr x, y;
};
std::optional<MulAcc> MatchMulAcc(const ReductionStage& s) {
  const auto* add = s.store->value.as<AddNode>();
  if (add == nullptr || !s.store->value.dtype().is_float()) return std::nullopt;
  auto is_c = [&](const PrimExpr& e) {
    const auto* l = e.as<BufferLoadNode>();
    return l != nullptr && l->buffer.get() == s.store->buffer.get() && StructuralEqual(l->indices, s.store->indices);
  };
  const MulNode* mul = nullptr;
  if (is_c(add->a)) mul = add->b.as<MulNode>();
  if (mul == nullptr && is_c(add->b)) mul = add->a.as<MulNode>();
  if (mul == nullptr || UsesOf(mul->a, s.all_vars, s.store->buffer.get()).loads_c ||
      UsesOf(mul->b, s.all_vars, s.store->buffer.get()).loads_c) {
    return std::nullopt;
  }
  return MulAcc{mul->a, mul->b};
}

// `e` guarded by `cond` (no guard when cond is undefined), as a value: zero outside.
PrimExpr Guarded(const PrimExpr& cond, const PrimExpr& e) {
  return cond.defined() ? Intrin("if_then_else", e.dtype(), {cond, e, Const(e.dtype(), 0)}) : e;
}

// `body` for v = 0 .. n - 1, unrolled (v substituted by each constant).
Stmt Unrolled(const Var& v, int64_t n, const Stmt& body) {
  std::vector<Stmt> copies;
  for (int64_t i = 0; i < n; ++i) copies.push_back(Substitute(body, VarMap{{v.get(), Int64(i)}}));
  return Seq(std::move(copies));
}

}  // namespace

const GemmConfig& ChooseGemmConfig(const PrimExpr& m, const PrimExpr& n) {
  constexpr int64_t kSymbolic = int64_t{1} << 40;
  return ConstOr(m, kSymbolic) >= kGemmLargeMinExtent && ConstOr(n, kSymbolic) >= kGemmLargeMinExtent ? kGemmLarge
                                                                                                       : kGemmSmall;
}

std::optional<Stmt> ScheduleGemmStage(const Stmt& stage) {
  std::optional<Gemm> m = Match(stage);
  if (!m) return std::nullopt;
  const Gemm& g = *m;
  const ReductionStage& st = g.s;
  PrimExpr M = Product(g.rows, st), N = Product(g.cols, st), K = Product(st.reduce, st), nb = Product(g.batch, st);
  constexpr int64_t kLarge = int64_t{1} << 40;
  if (ConstOr(Times(M, N), kLarge) < 256 || ConstOr(K, kLarge) < 8) return std::nullopt;
  const GemmConfig& cfg = ChooseGemmConfig(M, N);
  const int64_t reg_m = cfg.tile_m / cfg.threads_y, reg_n = cfg.tile_n / cfg.threads_x;
  const int64_t threads = cfg.threads_y * cfg.threads_x;

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
  std::optional<MulAcc> mul_acc = MatchMulAcc(st);
  // A float multiply-accumulate keeps float32 accumulators for 16-bit floats (as cuBLAS's
  // CUBLAS_COMPUTE_32F does) and is one fused multiply-add per k.
  const DataType acc_dt = mul_acc && dt.bits() < 32 ? DataType::Float(32) : dt;
  Buffer acc = Buffer::Make("acc", {Int64(reg_m * reg_n)}, acc_dt, "local");
  PrimExpr acc_at = Plus(Times(a, Int64(reg_n)), b);
  // Where thread t of `threads` along an axis has its element e: in runs of `group`, the runs
  // threads * group apart.
  auto spread = [&](const Var& t, const Var& e, int64_t threads) {
    PrimExpr run = cfg.group == 1 ? PrimExpr(e) : PrimExpr(FloorDiv(e, Int64(cfg.group)));
    PrimExpr in_run = cfg.group == 1 ? Int64(0) : PrimExpr(FloorMod(e, Int64(cfg.group)));
    return Plus(Plus(Times(run, Int64(threads * cfg.group)), Times(t, Int64(cfg.group))), in_run);
  };
  PrimExpr row = spread(ty, a, cfg.threads_y), col = spread(tx, b, cfg.threads_x);
  PrimExpr i0 = Times(by, Int64(cfg.tile_m)), j0 = Times(bx, Int64(cfg.tile_n));
  PrimExpr nk = CeilDivBy(K, cfg.tile_k);

  TileRewriter rw(cfg, all, a_side, b_side, st.store->buffer.get(), Load(acc, {acc_at}), a, b);
  // The operands are converted to the accumulator type as they enter the tiles (once per element
  // and block, not once per use).
  PrimExpr update = mul_acc ? FusedMulAdd(rw.VisitExpr(CastTo(acc_dt, mul_acc->x)),
                                          rw.VisitExpr(CastTo(acc_dt, mul_acc->y)), Load(acc, {acc_at}))
                            : rw.VisitExpr(st.store->value);

  // The iter vars at (row, col) of this thread's register tile and k of the K step.
  PrimExpr k0 = Times(ko, Int64(cfg.tile_k));
  VarMap at;
  Bind(g.batch, st, bz, &at);
  Bind(g.rows, st, Plus(i0, row), &at);
  Bind(g.cols, st, Plus(j0, col), &at);
  Bind(st.reduce, st, Plus(k0, kk), &at);
  auto each_output = [&](const Stmt& body) { return Unrolled(a, reg_m, Unrolled(b, reg_n, body)); };

  Stmt init = each_output(Store(acc, CastTo(acc_dt, Substitute(st.init->value, at)), {acc_at}));

  // Tile loads: thread t handles elements t, t + threads, ... of each tile, K-fastest for A (a
  // row of A is contiguous along K in a row-major matmul) and N-fastest for B. `k0` is the K step's
  // first k; each value is evaluated into register l of the tile's staging buffer (double
  // buffering) or stored straight into the shared tile at `stage`.
  PrimExpr t = Plus(Times(ty, Int64(cfg.threads_x)), tx);
  PrimExpr flat = Plus(Times(l, Int64(threads)), t);
  std::vector<Buffer> staging;
  auto tile_coords = [&](const TileRewriter::Tile& tile) {
    int64_t other = tile.a_side ? cfg.tile_m : cfg.tile_n;
    PrimExpr kc = tile.a_side ? PrimExpr(FloorMod(flat, Int64(cfg.tile_k))) : PrimExpr(FloorDiv(flat, Int64(other)));
    PrimExpr oc = tile.a_side ? PrimExpr(FloorDiv(flat, Int64(cfg.tile_k))) : PrimExpr(FloorMod(flat, Int64(other)));
    return std::make_pair(kc, oc);
  };
  auto per_thread = [&](const TileRewriter::Tile& tile) {
    return (tile.a_side ? cfg.tile_m : cfg.tile_n) * cfg.tile_k / threads;
  };
  auto tile_value = [&](const TileRewriter::Tile& tile, const PrimExpr& k0) {
    auto [kc, oc] = tile_coords(tile);
    int64_t other = tile.a_side ? cfg.tile_m : cfg.tile_n;
    PrimExpr base = tile.a_side ? i0 : j0;
    VarMap sub;
    Bind(g.batch, st, bz, &sub);
    Bind(tile.a_side ? g.rows : g.cols, st, Plus(base, oc), &sub);
    Bind(st.reduce, st, Plus(k0, kc), &sub);
    PrimExpr inside = AndMaybe(Below(Plus(base, oc), tile.a_side ? M : N, other), Below(Plus(k0, kc), K, cfg.tile_k));
    return Guarded(inside, Substitute(tile.value, sub));
  };
  auto store_tiles = [&](const PrimExpr& k0, const PrimExpr& stage) {
    std::vector<Stmt> s;
    for (size_t i = 0; i < rw.tiles.size(); ++i) {
      const TileRewriter::Tile& tile = rw.tiles[i];
      auto [kc, oc] = tile_coords(tile);
      PrimExpr v = cfg.double_buffer ? Load(staging[i], {l}) : tile_value(tile, k0);
      s.push_back(Unrolled(l, per_thread(tile), Store(tile.shared, v, {stage, kc, oc})));
    }
    return Seq(std::move(s));
  };
  auto stage_tiles = [&](const PrimExpr& k0) {
    std::vector<Stmt> s;
    for (size_t i = 0; i < rw.tiles.size(); ++i) {
      s.push_back(Unrolled(l, per_thread(rw.tiles[i]), Store(staging[i], tile_value(rw.tiles[i], k0), {l})));
    }
    return Seq(std::move(s));
  };
  if (cfg.double_buffer) {
    for (const TileRewriter::Tile& tile : rw.tiles) {
      staging.push_back(Buffer::Make(tile.shared->name + "_next", {Int64(per_thread(tile))}, tile.value.dtype(), "local"));
    }
  }

  // One K step's compute from the tiles at `stage`: per k, the fragments, then the register tile.
  PrimExpr cur = cfg.double_buffer ? PrimExpr(FloorMod(ko, Int64(2))) : Int64(0);
  std::vector<Stmt> per_k;
  for (const TileRewriter::Tile& tile : rw.tiles) {
    const Var& e = tile.a_side ? a : b;
    per_k.push_back(Unrolled(e, tile.a_side ? reg_m : reg_n,
                             Store(tile.frag, Load(tile.shared, {cur, kk, tile.a_side ? row : col}), {e})));
  }
  per_k.push_back(each_output(Store(acc, Substitute(update, at), {acc_at})));
  Stmt step = Seq(std::move(per_k));
  PrimExpr k_inside = Below(Plus(k0, kk), K, cfg.tile_k);
  // Past K the tiles hold zeros, which leave a multiply-accumulate unchanged; another update
  // must not see them.
  if (k_inside.defined() && !mul_acc) step = ir::IfThenElse(k_inside, step);
  Stmt compute = Unrolled(kk, cfg.tile_k, step);

  Stmt k_loop;
  std::vector<Stmt> prologue;
  if (cfg.double_buffer) {
    // Step 0 into stage 0 before the loop; inside, step ko + 1 is read into registers before step
    // ko computes and stored into the other stage after it. The one barrier per step orders both
    // this step's stores before the next step's reads and this step's reads before the stores a
    // step later.
    prologue.push_back(stage_tiles(Int64(0)));
    prologue.push_back(store_tiles(Int64(0), Int64(0)));
    prologue.push_back(SharedSync());
    PrimExpr more = LT(Plus(ko, Int64(1)), nk);
    PrimExpr k_next = Times(Plus(ko, Int64(1)), Int64(cfg.tile_k));
    k_loop = Serial(ko, nk, ForKind::kSerial,
                    Seq({ir::IfThenElse(more, stage_tiles(k_next)), compute,
                         ir::IfThenElse(more, store_tiles(k_next, FloorMod(Plus(ko, Int64(1)), Int64(2)))),
                         SharedSync()}));
  } else {
    k_loop = Serial(ko, nk, ForKind::kSerial, Seq({store_tiles(k0, Int64(0)), SharedSync(), compute, SharedSync()}));
  }

  std::vector<PrimExpr> out_idx;
  for (const PrimExpr& e : st.store->indices) out_idx.push_back(Substitute(e, at));
  Stmt write = BufferStore(st.store->buffer, CastTo(dt, Load(acc, {acc_at})), Array<PrimExpr>(out_idx));
  PrimExpr out_inside = AndMaybe(Below(Plus(i0, row), M, cfg.tile_m), Below(Plus(j0, col), N, cfg.tile_n));
  if (out_inside.defined()) write = ir::IfThenElse(out_inside, write);

  std::vector<Stmt> seq = {init};
  for (Stmt& s : prologue) seq.push_back(std::move(s));
  seq.push_back(k_loop);
  seq.push_back(each_output(write));
  Stmt body = Seq(std::move(seq));
  body = Allocate(acc, body);
  for (size_t i = staging.size(); i-- > 0;) body = Allocate(staging[i], body);
  for (size_t i = rw.tiles.size(); i-- > 0;) body = Allocate(rw.tiles[i].frag, Allocate(rw.tiles[i].shared, body));
  body = ThreadLoop(tx, Int64(cfg.threads_x), "threadIdx.x", body);
  body = ThreadLoop(ty, Int64(cfg.threads_y), "threadIdx.y", body);
  body = ThreadLoop(bx, CeilDivBy(N, cfg.tile_n), "blockIdx.x", body);
  body = ThreadLoop(by, CeilDivBy(M, cfg.tile_m), "blockIdx.y", body);
  if (!IsConst(nb, 1)) body = ThreadLoop(bz, nb, "blockIdx.z", body);
  return body;
}

}  // namespace kiln::relax::legalize
