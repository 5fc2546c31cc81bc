// ScheduleGemmMmaStage (schedule_gpu_gemm_mma.h). The stage is rebuilt as plain TIR under the
// thread bindings: block (bz, by, bx) owns output rows [by * 128, +128) and columns
// [bx * 128, +128) of batch point bz; its 256 threads are 8 warps (threadIdx.y) of 32 lanes
// (threadIdx.x), warp w owning the 64 x 32 sub-tile at rows (w / 4) * 64 and columns (w % 4) * 32.
// Per K step of 32, every thread stores 16 elements of each operand tile into shared memory (A as
// [m][k], B transposed to [n][k], so that the two elements of a fragment register are adjacent
// along k in both), a barrier, then per half step of 16 each lane reads its A fragments (4 x 8
// elements) and B fragments (4 x 4) from the tiles and issues the 16 mma instructions of its warp,
// and a barrier before the next step's stores. Rows of the shared tiles are padded by 8 elements
// (80 bytes apart): the 32 lanes of a fragment read (8 groups of rows x 4 pairs of columns) then
// fall in 32 distinct banks. Everything per thread is unrolled here, in the TIR, so that the
// fragments and the accumulators are registers.
#include "compiler/relax/legalize/schedule_gpu_gemm_mma.h"

#include <string>
#include <utility>
#include <vector>

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

constexpr int64_t kWarpTileM = kMmaTileM / kMmaWarpsM, kWarpTileN = kMmaTileN / kMmaWarpsN;
constexpr int64_t kFragsM = kWarpTileM / 16, kFragsN = kWarpTileN / 8;  // instructions per warp and k16
constexpr int64_t kThreads = kMmaWarpsM * kMmaWarpsN * 32;
constexpr int64_t kRowStride = kMmaTileK + 8;  // shared tile row, padded (see the file comment)

// The float16 load an operand of the product is, through a cast to the output dtype if any.
const BufferLoadNode* Float16Load(const PrimExpr& e, DataType out) {
  PrimExpr v = e;
  if (const auto* c = v.as<CastNode>()) {
    if (c->dtype != out) return nullptr;
    v = c->value;
  }
  const auto* l = v.as<BufferLoadNode>();
  return l != nullptr && l->buffer->dtype == DataType::Float(16) ? l : nullptr;
}

Stmt Mma(const Buffer& a, int64_t a_off, const Buffer& b, int64_t b_off, const Buffer& c, int64_t c_off) {
  return Evaluate(Intrin("ptx_legacy.mma", DataType::Void(),
                         {StringImm("m16n8k16"), StringImm("row"), StringImm("col"), StringImm("fp16"),
                          StringImm("fp16"), StringImm("fp32"), a->data, Int64(a_off), b->data, Int64(b_off), c->data,
                          Int64(c_off), IntImm(DataType::Bool(), 0)}));
}

}  // namespace

std::optional<Float16Gemm> MatchFloat16Gemm(const ReductionStage& s) {
  const DataType dt = s.store->buffer->dtype;
  if (s.reduce.size() != 1 || !(dt == DataType::Float(16) || dt == DataType::Float(32))) return std::nullopt;
  const auto* zero = s.init->value.as<FloatImmNode>();
  if (zero == nullptr || zero->value != 0) return std::nullopt;
  const Array<PrimExpr>& idx = s.store->indices;
  if (idx.size() < 2) return std::nullopt;
  Float16Gemm g{idx[idx.size() - 2].as<VarNode>(), idx[idx.size() - 1].as<VarNode>(), s.reduce[0]->var.get(),
            PrimExpr(), PrimExpr(), {}, 0, 0, 0};
  if (g.i == nullptr || g.j == nullptr || g.i == g.j || !s.spatial_vars.count(g.i) || !s.spatial_vars.count(g.j)) {
    return std::nullopt;
  }
  // C + x * y, either order of the sum.
  const auto* add = s.store->value.as<AddNode>();
  if (add == nullptr) return std::nullopt;
  auto is_c = [&](const PrimExpr& e) {
    const auto* l = e.as<BufferLoadNode>();
    return l != nullptr && l->buffer.get() == s.store->buffer.get() && StructuralEqual(l->indices, idx);
  };
  const MulNode* mul = is_c(add->a) ? add->b.as<MulNode>() : is_c(add->b) ? add->a.as<MulNode>() : nullptr;
  if (mul == nullptr) return std::nullopt;
  const BufferLoadNode* x = Float16Load(mul->a, dt);
  const BufferLoadNode* y = Float16Load(mul->b, dt);
  if (x == nullptr || y == nullptr || x->buffer.get() == s.store->buffer.get() ||
      y->buffer.get() == s.store->buffer.get()) {
    return std::nullopt;
  }
  VarSet ux = UsesOf(GetRef<PrimExpr>(x), s.all_vars, nullptr).vars;
  VarSet uy = UsesOf(GetRef<PrimExpr>(y), s.all_vars, nullptr).vars;
  if (ux.count(g.j)) {
    std::swap(x, y);
    std::swap(ux, uy);
  }
  if (!ux.count(g.i) || ux.count(g.j) || !ux.count(g.k) || !uy.count(g.j) || uy.count(g.i) || !uy.count(g.k)) {
    return std::nullopt;
  }
  g.a = GetRef<PrimExpr>(x);
  g.b = GetRef<PrimExpr>(y);
  for (const IterVarNode* iv : s.spatial) {
    if (iv->var.get() != g.i && iv->var.get() != g.j) g.batch.push_back(iv);
  }
  g.m = ConstOr(s.extent.at(g.i), -1);
  g.n = ConstOr(s.extent.at(g.j), -1);
  g.kk = ConstOr(s.extent.at(g.k), -1);
  if (g.m <= 0 || g.n <= 0 || g.kk <= 0) return std::nullopt;
  return g;
}

VarMap Float16GemmAt(const Float16Gemm& g, const ReductionStage& s, const PrimExpr& bz, const PrimExpr& i,
                     const PrimExpr& j, const PrimExpr& k) {
  VarMap sub;
  Bind(g.batch, s, bz, &sub);
  if (i.defined()) sub[g.i] = CastTo(g.i->dtype, i);
  if (j.defined()) sub[g.j] = CastTo(g.j->dtype, j);
  if (k.defined()) sub[g.k] = CastTo(g.k->dtype, k);
  return sub;
}

Stmt Float16GemmGrid(const Float16Gemm& g, const ReductionStage& s, int64_t tile_m, int64_t tile_n, const Var& bz,
                     const Var& by, const Var& bx, Stmt body) {
  body = ThreadLoop(bx, Int64(g.n / tile_n), "blockIdx.x", std::move(body));
  body = ThreadLoop(by, Int64(g.m / tile_m), "blockIdx.y", std::move(body));
  PrimExpr nb = Product(g.batch, s);
  return IsConst(nb, 1) ? body : ThreadLoop(bz, nb, "blockIdx.z", std::move(body));
}

// The PTX ISA's tables: A's a0..a7 are rows g (a0, a1, a4, a5) and g + 8 (a2, a3, a6, a7), columns
// 2t + (r & 1), 8 more for a4..a7; B's b0..b3 are rows (k) 2t + (r & 1), 8 more for b2, b3, column
// g; C's c0..c3 are rows g (c0, c1) and g + 8 (c2, c3), columns 2t + (r & 1).
MmaElement MmaFragmentA(const PrimExpr& g, const PrimExpr& t, int r) {
  return {Plus(g, Int64(8 * ((r >> 1) & 1))), Plus(Times(t, Int64(2)), Int64((r & 1) + 8 * (r >> 2)))};
}
MmaElement MmaFragmentB(const PrimExpr& g, const PrimExpr& t, int r) {
  return {Plus(Times(t, Int64(2)), Int64((r & 1) + 8 * (r >> 1))), g};
}
MmaElement MmaFragmentC(const PrimExpr& g, const PrimExpr& t, int r) {
  return {Plus(g, Int64(8 * (r >> 1))), Plus(Times(t, Int64(2)), Int64(r & 1))};
}

std::optional<Stmt> ScheduleGemmMmaStage(const Stmt& stage) {
  if (!kGemmTensorCores) return std::nullopt;
  std::optional<ReductionStage> rs = MatchReductionStage(stage);
  if (!rs) return std::nullopt;
  std::optional<Float16Gemm> mg = MatchFloat16Gemm(*rs);
  if (!mg || mg->m % kMmaTileM != 0 || mg->n % kMmaTileN != 0 || mg->kk % kMmaTileK != 0) return std::nullopt;
  const ReductionStage& st = *rs;
  const Float16Gemm& g = *mg;
  const DataType f16 = DataType::Float(16), f32 = DataType::Float(32);

  Var bz("bz", DataType::Int(64)), by("by", DataType::Int(64)), bx("bx", DataType::Int(64));
  Var warp("warp", DataType::Int(64)), lane("lane", DataType::Int(64)), ko("ko", DataType::Int(64));
  Buffer a_sh = Buffer::Make("A_shared", {Int64(kMmaTileM * kRowStride)}, f16, "shared");
  Buffer b_sh = Buffer::Make("B_shared", {Int64(kMmaTileN * kRowStride)}, f16, "shared");
  Buffer a_frag = Buffer::Make("A_frag", {Int64(kFragsM * 8)}, f16, "local");
  Buffer b_frag = Buffer::Make("B_frag", {Int64(kFragsN * 4)}, f16, "local");
  Buffer acc = Buffer::Make("acc", {Int64(kFragsM * kFragsN * 4)}, f32, "local");

  const PrimExpr i0 = Times(by, Int64(kMmaTileM)), j0 = Times(bx, Int64(kMmaTileN));
  const PrimExpr k0 = Times(ko, Int64(kMmaTileK));
  const PrimExpr wm = FloorDivBy(warp, kMmaWarpsN), wn = FloorMod(warp, Int64(kMmaWarpsN));
  const PrimExpr lg = FloorDivBy(lane, 4), lt = FloorMod(lane, Int64(4));
  auto value_at = [&](const PrimExpr& v, const PrimExpr& i, const PrimExpr& j, const PrimExpr& k) {
    return Substitute(v, Float16GemmAt(g, st, bz, i, j, k));
  };

  std::vector<Stmt> body;
  for (int64_t e = 0; e < kFragsM * kFragsN * 4; ++e) body.push_back(Store(acc, FloatImm(f32, 0), {Int64(e)}));

  // Tile stores: thread (warp, lane) handles flat elements l * 256 + warp * 32 + lane of each
  // tile, k fastest for A (rows warp + 8 l, k = lane) and n fastest for B (k = 2 l + warp / 4,
  // n = (warp % 4) * 32 + lane), so that a warp's loads are consecutive in a row-major operand.
  std::vector<Stmt> step;
  for (int64_t l = 0; l < kMmaTileM * kMmaTileK / kThreads; ++l) {
    PrimExpr m = Plus(Int64(l * (kThreads / kMmaTileK)), warp);
    step.push_back(Store(a_sh, value_at(g.a, Plus(i0, m), PrimExpr(), Plus(k0, lane)),
                         {Plus(Times(m, Int64(kRowStride)), lane)}));
  }
  for (int64_t l = 0; l < kMmaTileN * kMmaTileK / kThreads; ++l) {
    PrimExpr kc = Plus(Int64(l * (kThreads / kMmaTileN)), FloorDivBy(warp, kMmaTileN / 32));
    PrimExpr n = Plus(Times(FloorMod(warp, Int64(kMmaTileN / 32)), Int64(32)), lane);
    step.push_back(Store(b_sh, value_at(g.b, PrimExpr(), Plus(j0, n), Plus(k0, kc)),
                         {Plus(Times(n, Int64(kRowStride)), kc)}));
  }
  step.push_back(SharedSync());
  for (int64_t ks = 0; ks < kMmaTileK; ks += 16) {
    for (int64_t mi = 0; mi < kFragsM; ++mi) {
      for (int r = 0; r < 8; ++r) {
        MmaElement e = MmaFragmentA(lg, lt, r);
        PrimExpr row = Plus(Plus(Times(wm, Int64(kWarpTileM)), Int64(mi * 16)), e.row);
        step.push_back(Store(a_frag, Load(a_sh, {Plus(Times(row, Int64(kRowStride)), Plus(e.col, Int64(ks)))}),
                             {Int64(mi * 8 + r)}));
      }
    }
    for (int64_t ni = 0; ni < kFragsN; ++ni) {
      for (int r = 0; r < 4; ++r) {
        MmaElement e = MmaFragmentB(lg, lt, r);
        PrimExpr n = Plus(Plus(Times(wn, Int64(kWarpTileN)), Int64(ni * 8)), e.col);
        step.push_back(Store(b_frag, Load(b_sh, {Plus(Times(n, Int64(kRowStride)), Plus(e.row, Int64(ks)))}),
                             {Int64(ni * 4 + r)}));
      }
    }
    for (int64_t mi = 0; mi < kFragsM; ++mi) {
      for (int64_t ni = 0; ni < kFragsN; ++ni) step.push_back(Mma(a_frag, mi * 8, b_frag, ni * 4, acc, (mi * kFragsN + ni) * 4));
    }
  }
  step.push_back(SharedSync());
  body.push_back(Serial(ko, Int64(g.kk / kMmaTileK), ForKind::kSerial, Seq(std::move(step))));

  // The accumulators, cast to the output's dtype, to their places in C.
  for (int64_t mi = 0; mi < kFragsM; ++mi) {
    for (int64_t ni = 0; ni < kFragsN; ++ni) {
      for (int r = 0; r < 4; ++r) {
        MmaElement e = MmaFragmentC(lg, lt, r);
        PrimExpr i = Plus(i0, Plus(Plus(Times(wm, Int64(kWarpTileM)), Int64(mi * 16)), e.row));
        PrimExpr j = Plus(j0, Plus(Plus(Times(wn, Int64(kWarpTileN)), Int64(ni * 8)), e.col));
        std::vector<PrimExpr> out;
        for (const PrimExpr& x : st.store->indices) out.push_back(value_at(x, i, j, PrimExpr()));
        body.push_back(BufferStore(st.store->buffer, CastTo(st.store->buffer->dtype,
                                                            Load(acc, {Int64((mi * kFragsN + ni) * 4 + r)})),
                                   Array<PrimExpr>(out)));
      }
    }
  }

  Stmt s = Seq(std::move(body));
  s = Allocate(acc, s);
  s = Allocate(b_frag, s);
  s = Allocate(a_frag, s);
  s = Allocate(b_sh, s);
  s = Allocate(a_sh, s);
  s = ThreadLoop(lane, Int64(32), "threadIdx.x", s);
  s = ThreadLoop(warp, Int64(kMmaWarpsM * kMmaWarpsN), "threadIdx.y", s);
  return Float16GemmGrid(g, st, kMmaTileM, kMmaTileN, bz, by, bx, s);
}

}  // namespace kiln::relax::legalize
