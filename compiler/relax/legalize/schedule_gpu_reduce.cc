// ScheduleReductionStage (schedule_gpu_reduce.h). The halving steps are emitted one after another
// (not as a loop) with the barrier outside each step's condition, so that every thread of the
// block reaches every barrier.
#include "compiler/relax/legalize/schedule_gpu_reduce.h"

#include <functional>
#include <utility>
#include <vector>

#include "compiler/ir/structural.h"
#include "compiler/relax/legalize/loops.h"
#include "compiler/relax/legalize/schedule_gpu_stage.h"
#include "compiler/relax/legalize/te.h"

namespace kiln::relax::legalize {

using namespace ir;  // NOLINT: this file is about IR node types only
using tir::transform::Substitute;
using tir::transform::VarMap;

namespace {

constexpr int64_t kWarpSize = 32;  // the lanes of a CUDA warp (threads is a multiple of it)

// The update's operator: how two partial results combine, and its identity.
struct Combiner {
  std::function<PrimExpr(const PrimExpr&, const PrimExpr&)> combine;
  PrimExpr identity;
  PrimExpr lhs, rhs;  // the update's operands
};

std::optional<Combiner> MatchCombiner(const PrimExpr& update, DataType dt) {
  if (const auto* n = update.as<AddNode>()) {
    return Combiner{[](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(Add(a, b)); }, Const(dt, 0), n->a, n->b};
  }
  if (const auto* n = update.as<MulNode>()) {
    return Combiner{[](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(Mul(a, b)); }, Const(dt, 1), n->a, n->b};
  }
  if (const auto* n = update.as<MaxNode>()) {
    return Combiner{[](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(Max(a, b)); }, MinValue(dt), n->a, n->b};
  }
  if (const auto* n = update.as<MinNode>()) {
    return Combiner{[](const PrimExpr& a, const PrimExpr& b) { return PrimExpr(Min(a, b)); }, MaxValue(dt), n->a, n->b};
  }
  return std::nullopt;
}

}  // namespace

std::optional<Stmt> ScheduleReductionStage(const Stmt& stage, bool warp_shuffle) {
  std::optional<ReductionStage> rs = MatchReductionStage(stage);
  if (!rs) return std::nullopt;
  const ReductionStage& s = *rs;
  const Buffer& c = s.store->buffer;
  const DataType dt = c->dtype;
  std::optional<Combiner> op = MatchCombiner(s.store->value, dt);
  if (!op) return std::nullopt;
  auto is_c = [&](const PrimExpr& e) {
    const auto* l = e.as<BufferLoadNode>();
    return l != nullptr && l->buffer.same_as(c) && StructuralEqual(l->indices, s.store->indices);
  };
  PrimExpr v = is_c(op->lhs) ? op->rhs : is_c(op->rhs) ? op->lhs : PrimExpr();
  if (!v.defined() || UsesOf(v, s.all_vars, c.get()).loads_c) return std::nullopt;
  PrimExpr k = Product(s.reduce, s), n = Product(s.spatial, s);
  constexpr int64_t kLarge = int64_t{1} << 40;
  if (ConstOr(k, kLarge) < 64 || ConstOr(n, 0) > 65535) return std::nullopt;
  const int64_t threads = ConstOr(k, kLarge) >= 256 ? 256 : 64;

  Var bx("bx", DataType::Int(64)), tx("tx", DataType::Int(64)), r("r", DataType::Int(64));
  Buffer acc = Buffer::Make("acc", {Int64(1)}, dt, "local");
  Buffer red = Buffer::Make("red_shared", {Int64(threads)}, dt, "shared");
  PrimExpr kidx = Plus(Times(r, Int64(threads)), tx);
  VarMap at;
  Bind(s.spatial, s, bx, &at);
  Bind(s.reduce, s, kidx, &at);

  Stmt step = Store(acc, op->combine(Load(acc, {Int64(0)}), Substitute(v, at)), {Int64(0)});
  if (PrimExpr inside = Below(kidx, k, threads); inside.defined()) step = ir::IfThenElse(inside, step);
  std::vector<Stmt> seq = {Store(acc, op->identity, {Int64(0)}), Serial(r, CeilDivBy(k, threads), ForKind::kSerial, step)};
  std::vector<PrimExpr> out_idx;
  for (const PrimExpr& e : s.store->indices) out_idx.push_back(Substitute(e, at));
  auto store_total = [&](const PrimExpr& total) {
    return ir::IfThenElse(EQ(tx, Int64(0)),
                          BufferStore(c, op->combine(Substitute(s.init->value, at), total), Array<PrimExpr>(out_idx)));
  };
  const bool shuffle = warp_shuffle && (dt == DataType::Float(32) || dt == DataType::Int(32));
  if (shuffle) {
    // acc = acc op (acc of the lane `offset` above), for offsets 16 .. 1: lane 0 of each warp then
    // holds the warp's result. Every lane of the warp executes each shuffle (full mask).
    auto warp_fold = [&]() {
      std::vector<Stmt> folds;
      for (int64_t offset = kWarpSize / 2; offset >= 1; offset /= 2) {
        PrimExpr other = Intrin("tvm_warp_shuffle_down", dt,
                                {IntImm(DataType::Int(32), -1), Load(acc, {Int64(0)}), IntImm(DataType::Int(32), offset),
                                 IntImm(DataType::Int(32), kWarpSize), IntImm(DataType::Int(32), kWarpSize)});
        folds.push_back(Store(acc, op->combine(Load(acc, {Int64(0)}), other), {Int64(0)}));
      }
      return Seq(folds);
    };
    const int64_t warps = threads / kWarpSize;
    red = Buffer::Make("red_shared", {Int64(warps)}, dt, "shared");
    seq.push_back(warp_fold());
    seq.push_back(ir::IfThenElse(EQ(FloorMod(tx, Int64(kWarpSize)), Int64(0)),
                                 Store(red, Load(acc, {Int64(0)}), {FloorDiv(tx, Int64(kWarpSize))})));
    seq.push_back(SharedSync());
    Stmt first = Store(acc, Intrin("if_then_else", dt, {LT(tx, Int64(warps)), Load(red, {tx}), op->identity}), {Int64(0)});
    seq.push_back(ir::IfThenElse(LT(tx, Int64(kWarpSize)),
                                 Seq({first, warp_fold(), store_total(Load(acc, {Int64(0)}))})));
  } else {
    seq.push_back(Store(red, Load(acc, {Int64(0)}), {tx}));
    seq.push_back(SharedSync());
    for (int64_t half = threads / 2; half >= 1; half /= 2) {
      Stmt fold = Store(red, op->combine(Load(red, {tx}), Load(red, {Plus(tx, Int64(half))})), {tx});
      seq.push_back(ir::IfThenElse(LT(tx, Int64(half)), fold));
      seq.push_back(SharedSync());
    }
    seq.push_back(store_total(Load(red, {Int64(0)})));
  }

  Stmt body = Allocate(red, Allocate(acc, Seq(seq)));
  return ThreadLoop(bx, n, "blockIdx.x", ThreadLoop(tx, Int64(threads), "threadIdx.x", body));
}

}  // namespace kiln::relax::legalize
