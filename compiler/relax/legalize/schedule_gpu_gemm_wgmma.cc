// ScheduleGemmWgmmaStage (schedule_gpu_gemm_wgmma.h). The stage is rebuilt as plain TIR under the
// thread bindings: block (bz, by, bx) owns output rows [by * 128, +128) and columns
// [bx * 256, +256) of batch point bz; thread tid of 256 is lane tid % 32 of warp tid / 32, in
// warpgroup tid / 128, which owns rows [64 * (tid / 128), +64) of the tile. Per thread:
//
//   prologue: copy K tiles 0 .. S-2 into stages 0 .. S-2 (one cp.async group per tile)
//   for kt in [0, K / 64):
//     wait until at most S-2 of this thread's groups are in flight (tile kt has landed), make
//     those writes visible to the tensor cores (fence.proxy.async), barrier (every thread's
//     copies of tile kt have landed, and every warpgroup is done with tile kt-1's stage);
//     4 wgmma m64n256k16 over the stage's A and B (k 16 at a time), committed as one group;
//     while they run, copy tile kt+S-1 into the stage tile kt-1 used, and commit that group;
//     wait for the wgmma group.
//   epilogue: barrier (the stages are free), the accumulators, cast to C's dtype, into a tile in
//   shared memory; proxy fence, barrier; threads 0..127 each have the copy engine write one tile
//   row to C (cp.async.bulk), and wait for it. Written straight from the registers, a warp's
//   stores would touch 8 rows x 8 bytes each (a quarter of each 32-byte sector); this epilogue
//   took float16 4096^3 from 0.73x to 0.85x of cuBLAS on an H200.
//
// Every group is waited for within its iteration, so none is in flight across the barrier or the
// loop's back edge. A deeper pipeline (copies two tiles ahead, wgmma.wait_group 1, the next group
// queued behind the running one) ran 8% faster on an H200 but gave wrong sums on 4096^3, though
// right ones up to a wave of blocks; ptxas (CUDA 13.0) serializes it (C7514) as soon as the
// accumulators are fenced. Until that is understood, the drained pipeline stays.
//
// A descriptor's 14-bit start address is in 16-byte units, so stepping the descriptor is adding
// the byte step / 16 to it; every start stays below 256 KiB, so the sum never carries into the
// next field. The dynamic shared buffer is over-allocated by 1 KiB and its base rounded up to
// 1024 bytes, the alignment the swizzle atoms need.
#include "compiler/relax/legalize/schedule_gpu_gemm_wgmma.h"

#include <string>
#include <utility>
#include <vector>

#include "compiler/relax/legalize/loops.h"
#include "compiler/relax/legalize/schedule_gpu_gemm_mma.h"
#include "compiler/relax/legalize/schedule_gpu_stage.h"
#include "compiler/relax/legalize/te.h"
#include "compiler/tir/transform/ir_utils.h"

namespace kiln::relax::legalize {
namespace {

using namespace ir;  // NOLINT: this file is about IR node types only
using tir::transform::Substitute;
using tir::transform::VarMap;

constexpr int64_t kThreads = 256;
constexpr int64_t kBytesA = kWgmmaTileM * kWgmmaTileK * 2, kBytesB = kWgmmaTileK * kWgmmaTileN * 2;
constexpr int64_t kStageBytes = kBytesA + kBytesB;
constexpr int64_t kAccumulators = kWgmmaTileN / 2;  // per thread: 64 x 256 over 128 threads
// B's 64-column chunks are kWgmmaTileK rows of 128 bytes apart (the descriptor's leading offset).
constexpr int64_t kChunkBytesB = kWgmmaTileK * 128;
static_assert(kWgmmaTileK == 64, "a tile row of 64 float16 is one 128-byte swizzle row");
static_assert(kStageBytes % 1024 == 0 && kBytesA % 1024 == 0, "stages and tiles start on swizzle atoms");
static_assert(kWgmmaTileM * (kWgmmaTileN * 4 + 16) <= kWgmmaStages * kStageBytes,
              "the epilogue's float32 tile (padded rows) fits in the stages");

// The descriptor fields above the start address: leading and stride byte offsets (16-byte
// units, bits 16-29 and 32-45) and the 128-byte swizzle (1 in bits 62-63).
uint64_t DescriptorHigh(int64_t leading_bytes, int64_t stride_bytes) {
  return (static_cast<uint64_t>(leading_bytes >> 4) << 16) | (static_cast<uint64_t>(stride_bytes >> 4) << 32) |
         (uint64_t{1} << 62);
}

PrimExpr Xor(const PrimExpr& a, const PrimExpr& b) { return Intrin("bitwise_xor", DataType::Int(64), {a, b}); }

// The 128-byte swizzle of byte offset (row * 128 + chunk * 16) within an atom-aligned tile.
PrimExpr Swizzled(const PrimExpr& row, const PrimExpr& chunk) {
  return Plus(Times(row, Int64(128)), Times(Xor(chunk, FloorMod(row, Int64(8))), Int64(16)));
}

// The flat element offset of `buffer` at `indices` after `sub` (row-major, compact).
PrimExpr FlatOffset(const Buffer& buffer, const Array<PrimExpr>& indices, const VarMap& sub) {
  PrimExpr off = Int64(0);
  for (size_t d = 0; d < indices.size(); ++d) {
    off = Plus(Times(off, AsIndex(buffer->shape[d])), AsIndex(Substitute(indices[d], sub)));
  }
  return off;
}

// `buffer` is compact row-major and `indices` end in `major`, `minor`: a tile's rows are runs of
// consecutive elements (whole 16-byte copies, as the tile sizes are).
bool RowMajor(const Buffer& buffer, const Array<PrimExpr>& indices, const VarNode* major, const VarNode* minor) {
  if (!buffer->strides.empty()) return false;
  if (buffer->elem_offset.defined() && !IsConst(buffer->elem_offset, 0)) return false;  // undefined is 0
  size_t n = indices.size();
  return n >= 2 && n == buffer->shape.size() && indices[n - 1].get() == minor && indices[n - 2].get() == major;
}
bool RowMajorIn(const PrimExpr& e, const VarNode* major, const VarNode* minor) {
  const auto* l = e.as<BufferLoadNode>();
  return l != nullptr && RowMajor(l->buffer, l->indices, major, minor);
}

Stmt Call(const std::string& op, std::vector<PrimExpr> args) {
  return Evaluate(Intrin(op, DataType::Void(), std::move(args)));
}

}  // namespace

int64_t WgmmaOffsetA(int64_t m, int64_t k) { return m * 128 + (((k / 8) ^ (m % 8)) * 16) + (k % 8) * 2; }

int64_t WgmmaOffsetB(int64_t k, int64_t n) {
  return (n / 64) * kChunkBytesB + k * 128 + ((((n % 64) / 8) ^ (k % 8)) * 16) + (n % 8) * 2;
}

WgmmaElement WgmmaAccumulator(int64_t t, int64_t v) {
  const int64_t warp = t / 32, lane = t % 32;
  return {warp * 16 + lane / 4 + 8 * ((v / 2) % 2), (v / 4) * 8 + (lane % 4) * 2 + v % 2};
}

std::optional<Stmt> ScheduleGemmWgmmaStage(const Stmt& stage) {
  std::optional<ReductionStage> rs = MatchReductionStage(stage);
  if (!rs) return std::nullopt;
  std::optional<Float16Gemm> mg = MatchFloat16Gemm(*rs);
  if (!mg || mg->m % kWgmmaTileM != 0 || mg->n % kWgmmaTileN != 0 || mg->kk % kWgmmaTileK != 0) return std::nullopt;
  const ReductionStage& st = *rs;
  const Float16Gemm& g = *mg;
  // The copies read A and B straight from memory, so the operands must be plain loads (no cast).
  if (!RowMajorIn(g.a, g.i, g.k) || !RowMajorIn(g.b, g.k, g.j)) return std::nullopt;
  // The epilogue writes C's tile rows with bulk copies.
  if (!RowMajor(st.store->buffer, st.store->indices, g.i, g.j)) return std::nullopt;
  const auto* load_a = g.a.as<BufferLoadNode>();
  const auto* load_b = g.b.as<BufferLoadNode>();
  const DataType f16 = DataType::Float(16), f32 = DataType::Float(32), i64 = DataType::Int(64);
  const int64_t k_tiles = g.kk / kWgmmaTileK;

  Var bz("bz", i64), by("by", i64), bx("bx", i64), tid("tid", i64), kt("kt", i64);
  Var addr("smem_addr", i64), base("smem_base", i64), pad("smem_pad", i64);
  Buffer smem = Buffer::Make("AB_shared", {Int64(kWgmmaStages * kStageBytes / 2 + 512)}, f16, "shared.dyn");
  Buffer acc = Buffer::Make("acc", {Int64(kAccumulators)}, f32, "local");
  const PrimExpr i0 = Times(by, Int64(kWgmmaTileM)), j0 = Times(bx, Int64(kWgmmaTileN));
  const PrimExpr warp = FloorDivBy(tid, 32), lane = FloorMod(tid, Int64(32)), wg = FloorDivBy(tid, 128);
  auto sub_at = [&](const PrimExpr& i, const PrimExpr& j, const PrimExpr& k) {
    return Float16GemmAt(g, st, bz, i, j, k);
  };

  // The copies of K tile `t` into stage `s`: A's 128 rows x 8 chunks and B's 64 rows x 32 chunks,
  // 16 bytes each, thread tid taking chunk tid + 256 r of each, so that a warp reads whole rows.
  auto copy_tile = [&](const PrimExpr& t, const PrimExpr& s) {
    std::vector<Stmt> copies;
    const PrimExpr stage_elems = Plus(pad, Times(s, Int64(kStageBytes / 2)));
    const PrimExpr k0 = Times(t, Int64(kWgmmaTileK));
    for (int64_t r = 0; r < kWgmmaTileM * 8 / kThreads; ++r) {
      PrimExpr m = Plus(FloorDivBy(tid, 8), Int64(r * kThreads / 8)), c = FloorMod(tid, Int64(8));
      PrimExpr src = FlatOffset(load_a->buffer, load_a->indices, sub_at(Plus(i0, m), PrimExpr(), Plus(k0, Times(c, Int64(8)))));
      PrimExpr dst = Plus(stage_elems, FloorDivBy(Swizzled(m, c), 2));
      copies.push_back(Evaluate(Intrin("ptx_cp_async", f16, {smem->data, dst, load_a->buffer->data, src, Int64(16)})));
    }
    for (int64_t r = 0; r < kWgmmaTileK * (kWgmmaTileN / 8) / kThreads; ++r) {
      PrimExpr k = Plus(FloorDivBy(tid, 32), Int64(r * kThreads / 32)), c = FloorMod(tid, Int64(32));
      PrimExpr src = FlatOffset(load_b->buffer, load_b->indices, sub_at(PrimExpr(), Plus(j0, Times(c, Int64(8))), Plus(k0, k)));
      PrimExpr byte = Plus(Times(FloorDivBy(c, 8), Int64(kChunkBytesB)), Swizzled(k, FloorMod(c, Int64(8))));
      PrimExpr dst = Plus(Plus(stage_elems, Int64(kBytesA / 2)), FloorDivBy(byte, 2));
      copies.push_back(Evaluate(Intrin("ptx_cp_async", f16, {smem->data, dst, load_b->buffer->data, src, Int64(16)})));
    }
    return Seq(std::move(copies));
  };
  const Stmt commit = Call("ptx_commit_group", {});
  const Stmt fence_acc = Call("cuda.wgmma_fence_operand", {acc->data, Int64(0), Int64(kAccumulators)});

  std::vector<Stmt> body;
  for (int64_t e = 0; e < kAccumulators; ++e) body.push_back(Store(acc, FloatImm(f32, 0), {Int64(e)}));
  for (int64_t s = 0; s < kWgmmaStages - 1; ++s) {
    if (s < k_tiles) body.push_back(copy_tile(Int64(s), Int64(s)));
    body.push_back(commit);
  }

  std::vector<Stmt> step;
  step.push_back(Call("ptx_wait_group", {Int64(kWgmmaStages - 2)}));
  step.push_back(Call("cuda.fence_proxy_async_shared", {}));
  step.push_back(SharedSync());
  step.push_back(fence_acc);
  step.push_back(Call("cuda.wgmma_fence", {}));
  // Descriptor start addresses in 16-byte units: this stage's A rows of this warpgroup and its B.
  const PrimExpr stage_units = Plus(FloorDivBy(base, 16), Times(FloorMod(kt, Int64(kWgmmaStages)), Int64(kStageBytes / 16)));
  const PrimExpr a_units = Plus(stage_units, Times(wg, Int64(64 * 128 / 16)));
  const PrimExpr b_units = Plus(stage_units, Int64(kBytesA / 16));
  const DataType u64 = DataType::UInt(64);
  for (int64_t kk = 0; kk < kWgmmaTileK / 16; ++kk) {
    // A: k 16 at a time is 32 bytes along its swizzled rows; B: 16 rows, two 8-row groups.
    PrimExpr da = Plus(CastTo(u64, Plus(a_units, Int64(kk * 32 / 16))), IntImm(u64, DescriptorHigh(16, 1024)));
    PrimExpr db = Plus(CastTo(u64, Plus(b_units, Int64(kk * 16 * 128 / 16))),
                       IntImm(u64, DescriptorHigh(kChunkBytesB, 1024)));
    step.push_back(Call("cuda.wgmma_mma_async", {StringImm("m64n256k16"), StringImm("f32"), StringImm("f16"),
                                                StringImm("f16"), acc->data, Int64(0), da, db, Int64(0), Int64(1)}));
  }
  step.push_back(Call("cuda.wgmma_commit_group", {}));
  const PrimExpr next = Plus(kt, Int64(kWgmmaStages - 1));
  step.push_back(ir::IfThenElse(LT(next, Int64(k_tiles)), copy_tile(next, FloorMod(next, Int64(kWgmmaStages)))));
  step.push_back(commit);
  step.push_back(Call("cuda.wgmma_wait_group", {Int64(0)}));
  step.push_back(fence_acc);
  body.push_back(Serial(kt, Int64(k_tiles), ForKind::kSerial, Seq(std::move(step))));

  // Epilogue: the accumulators, cast to C's dtype, into a tile in shared memory (the stages are
  // free once every warpgroup is past its last wait: the barrier), then the copy engine writes
  // each of its rows to C. The tile's rows are padded by 16 bytes, so that the 8 rows of one
  // warp's store fall in distinct banks; 16 bytes also keep each row aligned for the copy.
  const Buffer& c = st.store->buffer;
  const int64_t c_bytes = c->dtype.bytes(), row_bytes = kWgmmaTileN * c_bytes + 16;
  Buffer tile = Buffer::Make("C_shared", {Int64(kWgmmaTileM * row_bytes / c_bytes)}, c->dtype, "shared.dyn");
  tile.CopyOnWrite()->data = smem->data;  // a view of the same dynamic shared buffer
  const PrimExpr tile_base = Minus(base, addr);  // bytes from the buffer's start to the aligned base
  body.push_back(Call("ptx_wait_group", {Int64(0)}));
  body.push_back(SharedSync());
  for (int64_t v = 0; v < kAccumulators; ++v) {
    // WgmmaAccumulator's layout with the thread symbolic.
    PrimExpr row = Plus(Plus(Plus(Times(wg, Int64(64)), Times(FloorMod(warp, Int64(4)), Int64(16))), FloorDivBy(lane, 4)),
                        Int64(8 * ((v / 2) % 2)));
    PrimExpr col = Plus(Int64((v / 4) * 8 + v % 2), Times(FloorMod(lane, Int64(4)), Int64(2)));
    PrimExpr at = Plus(FloorDivBy(tile_base, c_bytes), Plus(Times(row, Int64(row_bytes / c_bytes)), col));
    body.push_back(Store(tile, CastTo(c->dtype, Load(acc, {Int64(v)})), {at}));
  }
  body.push_back(Call("cuda.fence_proxy_async_shared", {}));
  body.push_back(SharedSync());
  const PrimExpr dst = Times(FlatOffset(c, st.store->indices, sub_at(Plus(i0, tid), j0, PrimExpr())), Int64(c_bytes));
  const PrimExpr src = Plus(tile_base, Times(tid, Int64(row_bytes)));
  body.push_back(ir::IfThenElse(LT(tid, Int64(kWgmmaTileM)),
                                Call("cuda.bulk_copy_shared_to_global",
                                     {c->data, dst, smem->data, src, Int64(kWgmmaTileN * c_bytes)})));
  body.push_back(Call("cuda.bulk_commit_group", {}));
  body.push_back(Call("cuda.bulk_wait_group", {Int64(0)}));

  Stmt s = Seq(std::move(body));
  // The base rounded up to 1024 bytes, and the elements that skips.
  s = LetStmt(pad, FloorDivBy(Minus(base, addr), 2), s);
  s = LetStmt(base, Times(FloorDivBy(Plus(addr, Int64(1023)), 1024), Int64(1024)), s);
  s = LetStmt(addr, CastTo(i64, Intrin("cuda.cvta_generic_to_shared", DataType::UInt(32), {smem->data})), s);
  s = Allocate(acc, s);
  s = Allocate(smem, s);
  s = ThreadLoop(tid, Int64(kThreads), "threadIdx.x", s);
  return Float16GemmGrid(g, st, kWgmmaTileM, kWgmmaTileN, bz, by, bx, s);
}

}  // namespace kiln::relax::legalize
