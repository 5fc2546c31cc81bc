// R.matmul -> a PrimFunc scheduled for CPUs (see linalg.h for the schedule). The kernel is a
// pre-scheduled loop nest without SBlocks, hence op_pattern kOpaque: FuseTIR must not try to merge
// it with its neighbours.
#include "compiler/relax/legalize/linalg.h"

#include <functional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/kernel_call.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/legalize/te.h"
#include "compiler/relax/op/infer_util.h"

namespace kiln::relax::legalize {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

constexpr int kLanes = 16;   // one panel / register tile row: two AVX2 or one AVX-512 register
// Rows of a register tile: 6x16 floats are 12 AVX2 registers of accumulators, leaving 2 for the
// panel row and 1 for the broadcast a value (the 16 ymm registers of x86-64 AVX2); each k step is
// then 8 loads for 12 fused multiply-adds, where a 4x16 tile needs 6 loads for 8.
constexpr int kRows = 6;
// Register tiles that share each b panel while it is in L1: per k block, a group's 4 row slices of
// a (4 x 6 x 128 floats, 12 KB) and one 128x16 panel (8 KB) fit in a 32 KB L1 together, so the
// panel is loaded from L2 once per group rather than once per tile.
constexpr int kGroup = 4;
constexpr int kDepth = 128;  // k block

// A view of a parameter buffer's memory with another (compact) shape.
Buffer View(const Buffer& b, const std::string& name, std::vector<PrimExpr> shape) {
  auto n = make_object<BufferNode>();
  n->data = b->data;
  n->dtype = b->dtype;
  n->shape = Array<PrimExpr>(shape);
  n->name = name;
  return Buffer(ObjectPtr<Object>(std::move(n)));
}

// One 2-D product C[M, N] (+)= A[M, K] @ B[K, N], seen through accessors so that batch indices,
// 1-D operands and views need no special cases here.
struct Gemm {
  PrimExpr m, n, k;
  DataType dtype;                                                      // accumulation and result
  std::function<PrimExpr(const PrimExpr&, const PrimExpr&)> a_at;      // (i, k) -> a value
  std::function<PrimExpr(const PrimExpr&, const PrimExpr&)> b_at;      // (k, j) -> b value
  std::function<std::pair<Buffer, std::vector<PrimExpr>>(const PrimExpr&, const PrimExpr&)> c_at;  // (i, j)
  Buffer packed;                                                       // (ceil(N/16), K, 16)

  PrimExpr full_panels() const { return FloorDivBy(n, kLanes); }
  PrimExpr panels() const { return CeilDivBy(n, kLanes); }
  bool single_k_block() const { return ConstOr(k, kDepth + 1) <= kDepth; }

  Stmt StoreC(const PrimExpr& i, const PrimExpr& j, const PrimExpr& v) const {
    auto [buf, idx] = c_at(i, j);
    return Store(buf, v, idx);
  }
  PrimExpr LoadC(const PrimExpr& i, const PrimExpr& j) const {
    auto [buf, idx] = c_at(i, j);
    return Load(buf, idx);
  }

  // packed[jo, k, ji] = B[k, jo * 16 + ji], zero past column N.
  Stmt Pack() const {
    Stmt full = Loop("jo", full_panels(), ForKind::kParallel, [&](const PrimExpr& jo) {
      return Loop("k", k, ForKind::kSerial, [&](const PrimExpr& kk) {
        return Loop("ji", Int64(kLanes), ForKind::kVectorized, [&](const PrimExpr& ji) {
          return Store(packed, b_at(kk, Plus(Times(jo, Int64(kLanes)), ji)), {jo, kk, ji});
        });
      });
    });
    Stmt partial = LoopFrom("jo", full_panels(), Minus(panels(), full_panels()), ForKind::kSerial,
                            [&](const PrimExpr& jo) {
                              return Loop("k", k, ForKind::kSerial, [&](const PrimExpr& kk) {
                                return Loop("ji", Int64(kLanes), ForKind::kSerial, [&](const PrimExpr& ji) {
                                  PrimExpr j = Plus(Times(jo, Int64(kLanes)), ji);
                                  return Store(packed, IfThenElse(LT(j, n), b_at(kk, j), Const(dtype, 0)), {jo, kk, ji});
                                });
                              });
                            });
    return Seq({full, partial});
  }

  // The register tile for rows [r0, r0 + rows) and panel jo over k block ko: accumulate, then
  // write into C (added to what earlier k blocks left there unless there is only one block).
  Stmt Tile(const PrimExpr& r0, int rows, const PrimExpr& ko, const PrimExpr& jo, bool full_panel) const {
    Buffer acc = Buffer::Make("acc", {Int64(rows), Int64(kLanes)}, dtype, "local");
    PrimExpr k0 = Times(ko, Int64(kDepth));
    // A constant trip count when the blocks divide k (the common case) helps LLVM's loop passes.
    bool whole_blocks = ConstOr(k, 1) % kDepth == 0;
    PrimExpr depth = single_k_block() ? k : whole_blocks ? Int64(kDepth) : MinOf(Int64(kDepth), Minus(k, k0));
    auto each = [&](ForKind lane_kind, const PrimExpr& lanes, const std::function<Stmt(PrimExpr, PrimExpr)>& f) {
      return Loop("ii", Int64(rows), ForKind::kUnrolled, [&](const PrimExpr& ii) {
        return Loop("ji", lanes, lane_kind, [&](const PrimExpr& ji) { return f(ii, ji); });
      });
    };
    Stmt init = each(ForKind::kVectorized, Int64(kLanes),
                     [&](PrimExpr ii, PrimExpr ji) { return Store(acc, Const(dtype, 0), {ii, ji}); });
    Stmt update = Loop("k", depth, ForKind::kSerial, [&](const PrimExpr& kk) {
      PrimExpr kg = Plus(k0, kk);
      return each(ForKind::kVectorized, Int64(kLanes), [&](PrimExpr ii, PrimExpr ji) {
        PrimExpr v = FusedMulAdd(a_at(Plus(r0, ii), kg), Load(packed, {jo, kg, ji}), Load(acc, {ii, ji}));
        return Store(acc, v, {ii, ji});
      });
    });
    PrimExpr lanes = full_panel ? Int64(kLanes) : Minus(n, Times(jo, Int64(kLanes)));
    Stmt write = each(full_panel ? ForKind::kVectorized : ForKind::kSerial, lanes, [&](PrimExpr ii, PrimExpr ji) {
      PrimExpr i = Plus(r0, ii), j = Plus(Times(jo, Int64(kLanes)), ji);
      PrimExpr v = Load(acc, {ii, ji});
      return StoreC(i, j, single_k_block() ? v : PrimExpr(Add(LoadC(i, j), v)));
    });
    return Allocate(acc, Seq({init, update, write}));
  }

  // The `count` (<= kGroup) register-tile row blocks from row r0: per k block and b panel, every
  // block's tile, so that the panel is reused from L1.
  Stmt Group(const PrimExpr& r0, const PrimExpr& count) const {
    Stmt zero;
    if (!single_k_block()) {
      zero = Loop("ii", Times(count, Int64(kRows)), ForKind::kSerial, [&](const PrimExpr& ii) {
        return VectorLoop("j", n, kLanes, [&](const PrimExpr& j) { return StoreC(Plus(r0, ii), j, Const(dtype, 0)); });
      });
    }
    auto tiles = [&](const PrimExpr& ko, const PrimExpr& jo, bool full) {
      return Loop("it", count, ForKind::kSerial,
                  [&](const PrimExpr& it) { return Tile(Plus(r0, Times(it, Int64(kRows))), kRows, ko, jo, full); });
    };
    auto blocks = [&](const PrimExpr& ko) {
      Stmt full = Loop("jo", full_panels(), ForKind::kSerial, [&](const PrimExpr& jo) { return tiles(ko, jo, true); });
      Stmt partial = LoopFrom("jo", full_panels(), Minus(panels(), full_panels()), ForKind::kSerial,
                              [&](const PrimExpr& jo) { return tiles(ko, jo, false); });
      return Seq({full, partial});
    };
    Stmt body = single_k_block() ? blocks(Int64(0)) : Loop("ko", CeilDivBy(k, kDepth), ForKind::kSerial, blocks);
    return Seq({zero, body});
  }

  // Packs B, then computes every row: groups of kGroup row blocks of kRows in parallel, then the
  // rows left.
  Stmt Compute(bool pack) const {
    PrimExpr blocks = FloorDivBy(m, kRows);
    PrimExpr groups = CeilDivBy(blocks, kGroup);
    Stmt main = Loop("io", groups, ForKind::kParallel, [&](const PrimExpr& io) {
      PrimExpr first = Times(io, Int64(kGroup));
      PrimExpr count = ConstOr(blocks, 1) % kGroup == 0 ? Int64(kGroup) : MinOf(Int64(kGroup), Minus(blocks, first));
      return Group(Times(first, Int64(kRows)), count);
    });
    PrimExpr done = Times(blocks, Int64(kRows));
    return Seq({pack ? Pack() : Stmt(), main, RestRows(done, Minus(m, done))});
  }

  // The rows [r0, r0 + count) below the kRows-row blocks, with 1x16 tiles in parallel over the
  // column panels (so that a matrix-vector product, m = 1, still uses every core).
  Stmt RestRows(const PrimExpr& r0, const PrimExpr& count) const {
    auto panel = [&](const PrimExpr& jo, bool full) {
      return Loop("it", count, ForKind::kSerial, [&](const PrimExpr& it) {
        PrimExpr r = Plus(r0, it);
        Stmt zero;
        if (!single_k_block()) {
          PrimExpr width = full ? Int64(kLanes) : Minus(n, Times(jo, Int64(kLanes)));
          zero = Loop("ji", width, full ? ForKind::kVectorized : ForKind::kSerial, [&](const PrimExpr& ji) {
            return StoreC(r, Plus(Times(jo, Int64(kLanes)), ji), Const(dtype, 0));
          });
        }
        Stmt body = single_k_block() ? Tile(r, 1, Int64(0), jo, full)
                                     : Loop("ko", CeilDivBy(k, kDepth), ForKind::kSerial,
                                            [&](const PrimExpr& ko) { return Tile(r, 1, ko, jo, full); });
        return Seq({zero, body});
      });
    };
    Stmt full = Loop("jo", full_panels(), ForKind::kParallel, [&](const PrimExpr& jo) { return panel(jo, true); });
    Stmt partial = LoopFrom("jo", full_panels(), Minus(panels(), full_panels()), ForKind::kSerial,
                            [&](const PrimExpr& jo) { return panel(jo, false); });
    return Seq({full, partial});
  }
};

bool IsOne(const PrimExpr& e) { return IsConst(e, 1); }

}  // namespace

absl::StatusOr<PrimFunc> MatmulKernel(const TensorSpec& a, const TensorSpec& b, DataType out_dtype) {
  if (a.shape.empty() || b.shape.empty()) {
    return absl::InvalidArgumentError("matmul: operands must have rank >= 1");
  }
  if (out_dtype.is_void()) out_dtype = a.dtype;
  if (!out_dtype.is_numeric() || !out_dtype.is_scalar()) {
    return absl::InvalidArgumentError(absl::StrCat("matmul: unsupported dtype ", out_dtype.ToString()));
  }
  std::vector<PrimExpr> as, bs;
  for (const PrimExpr& d : a.shape) as.push_back(AsIndex(d));
  for (const PrimExpr& d : b.shape) bs.push_back(AsIndex(d));
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  const int a_batch = a_vec ? 0 : static_cast<int>(as.size()) - 2;
  const int b_batch = b_vec ? 0 : static_cast<int>(bs.size()) - 2;
  const int batch = std::max(a_batch, b_batch);

  // Output batch dims: numpy broadcasting, right-aligned.
  std::vector<PrimExpr> out_shape;
  for (int d = 0; d < batch; ++d) {
    int da = d - (batch - a_batch), db = d - (batch - b_batch);
    PrimExpr x = da >= 0 ? as[da] : PrimExpr(), y = db >= 0 ? bs[db] : PrimExpr();
    if (!x.defined() || (IsOne(x) && y.defined())) {
      out_shape.push_back(y);
    } else {
      out_shape.push_back(x);
    }
  }
  PrimExpr m = a_vec ? Int64(1) : as[as.size() - 2];
  PrimExpr k = as.back();
  PrimExpr n = b_vec ? Int64(1) : bs.back();
  if (!a_vec) out_shape.push_back(m);
  if (!b_vec) out_shape.push_back(n);

  Param pa = MakeParam("A", as, a.dtype), pb = MakeParam("B", bs, b.dtype);
  Param pc = MakeParam("matmul", out_shape, out_dtype);
  Gemm g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.dtype = out_dtype;
  g.packed = Buffer::Make("B_packed", {g.panels(), k, Int64(kLanes)}, out_dtype);

  // b without batch dims (or with only unit ones): a's batch dims become rows of one product, over
  // views of a and the result as 2-D matrices.
  bool b_flat = true;
  for (int d = 0; d < b_batch; ++d) b_flat &= IsOne(bs[d]);
  if (b_flat && !a_vec) {
    PrimExpr rows = Int64(1);
    for (int d = 0; d < batch; ++d) rows = Times(rows, out_shape[d]);
    rows = Times(rows, m);
    Buffer a2 = View(pa.buffer, "A_rows", {rows, k});
    Buffer c2 = View(pc.buffer, "matmul_rows", {rows, n});
    g.m = rows;
    g.a_at = [a2](const PrimExpr& i, const PrimExpr& kk) { return Load(a2, {i, kk}); };
    Buffer bview = b_vec ? View(pb.buffer, "B_col", {k, Int64(1)}) : View(pb.buffer, "B_mat", {k, n});
    g.b_at = [bview](const PrimExpr& kk, const PrimExpr& j) { return Load(bview, {kk, j}); };
    g.c_at = [c2](const PrimExpr& i, const PrimExpr& j) {
      return std::make_pair(c2, std::vector<PrimExpr>{i, j});
    };
    DataType t = out_dtype;
    auto a_at = g.a_at, b_at = g.b_at;
    g.a_at = [a_at, t](const PrimExpr& i, const PrimExpr& kk) { return CastTo(t, a_at(i, kk)); };
    g.b_at = [b_at, t](const PrimExpr& kk, const PrimExpr& j) { return CastTo(t, b_at(kk, j)); };
    Stmt body = Allocate(g.packed, g.Compute(true));
    body = DeclBuffer(a2, DeclBuffer(c2, DeclBuffer(bview, body)));
    return MakeKernel({pa, pb, pc}, body, OpPatternKind::kOpaque, true);
  }

  // General case: a serial loop per output batch dim around a 2-D product on the slices.
  std::vector<PrimExpr> bvars;
  std::function<Stmt(int)> nest = [&](int d) -> Stmt {
    if (d < batch) {
      return Loop(absl::StrCat("b", d), out_shape[d], ForKind::kSerial, [&](const PrimExpr& v) {
        bvars.push_back(v);
        Stmt s = nest(d + 1);
        bvars.pop_back();
        return s;
      });
    }
    // Batch indices of each operand: its own dims, 0 where it broadcasts a unit dim.
    auto operand_batch = [&](const std::vector<PrimExpr>& shape, int rank) {
      std::vector<PrimExpr> idx;
      for (int i = 0; i < rank; ++i) {
        int od = i + (batch - rank);
        idx.push_back(IsOne(shape[i]) && !IsOne(out_shape[od]) ? Int64(0) : bvars[od]);
      }
      return idx;
    };
    std::vector<PrimExpr> ab = operand_batch(as, a_batch), bb = operand_batch(bs, b_batch);
    std::vector<PrimExpr> cb(bvars.begin(), bvars.end());
    DataType t = out_dtype;
    Buffer A = pa.buffer, B = pb.buffer, C = pc.buffer;
    g.a_at = [=](const PrimExpr& i, const PrimExpr& kk) {
      std::vector<PrimExpr> idx = ab;
      if (!a_vec) idx.push_back(i);
      idx.push_back(kk);
      return CastTo(t, Load(A, idx));
    };
    g.b_at = [=](const PrimExpr& kk, const PrimExpr& j) {
      std::vector<PrimExpr> idx = bb;
      idx.push_back(kk);
      if (!b_vec) idx.push_back(j);
      return CastTo(t, Load(B, idx));
    };
    g.c_at = [=](const PrimExpr& i, const PrimExpr& j) {
      std::vector<PrimExpr> idx = cb;
      if (!a_vec) idx.push_back(i);
      if (!b_vec) idx.push_back(j);
      return std::make_pair(C, idx);
    };
    return g.Compute(true);
  };
  Stmt body = Allocate(g.packed, nest(0));
  return MakeKernel({pa, pb, pc}, body, OpPatternKind::kOpaque, true);
}

namespace {

// For GPU targets: out[batch..., i, j] = sum_k a[batch..., i, k] * b[batch..., k, j] as one s_tir
// reduction (numpy's 1-D operand and batch broadcasting rules as MatmulKernel), which
// ScheduleDefaultGPU runs one thread per output element.
absl::StatusOr<Expr> LegalizeMatmulGPU(const ir::relax::Call& call, LegalizeContext* ctx) {
  FuncBuilder fb("matmul");
  absl::StatusOr<Tensor> a = fb.Input(call->args[0]);
  if (!a.ok()) return a.status();
  absl::StatusOr<Tensor> b = fb.Input(call->args[1]);
  if (!b.ok()) return b.status();
  if (a->ndim() == 0 || b->ndim() == 0) return absl::InvalidArgumentError("matmul: operands must have rank >= 1");
  DataType dt = DTypeAttr(call, "out_dtype");
  if (dt.is_void()) dt = a->dtype();
  const bool a_vec = a->ndim() == 1, b_vec = b->ndim() == 1;
  const int a_batch = a_vec ? 0 : a->ndim() - 2, b_batch = b_vec ? 0 : b->ndim() - 2;
  const int batch = std::max(a_batch, b_batch);
  std::vector<PrimExpr> out_shape;
  for (int d = 0; d < batch; ++d) {
    int da = d - (batch - a_batch), db = d - (batch - b_batch);
    PrimExpr x = da >= 0 ? a->shape()[da] : PrimExpr(), y = db >= 0 ? b->shape()[db] : PrimExpr();
    out_shape.push_back(!x.defined() || (IsOne(x) && y.defined()) ? y : x);
  }
  if (!a_vec) out_shape.push_back(a->shape()[a->ndim() - 2]);
  if (!b_vec) out_shape.push_back(b->shape()[b->ndim() - 1]);
  PrimExpr k = a->shape()[a->ndim() - 1];
  // An operand's batch index: the output's, or 0 where the operand's dim is a broadcast 1.
  auto batch_index = [&](const Tensor& t, int t_batch, const Indices& i) {
    std::vector<PrimExpr> idx;
    for (int d = 0; d < t_batch; ++d) {
      int od = d + (batch - t_batch);
      idx.push_back(IsOne(t.shape()[d]) ? Int64(0) : i[od]);
    }
    return idx;
  };
  Tensor out = fb.Reduce(
      "T_matmul", out_shape, dt, {k}, Const(dt, 0), [](const PrimExpr& acc, const PrimExpr& v) { return PrimExpr(Add(acc, v)); },
      [&](const Indices& i, const Indices& kk) {
        std::vector<PrimExpr> ai = batch_index(*a, a_batch, i), bi = batch_index(*b, b_batch, i);
        if (!a_vec) ai.push_back(i[batch]);
        ai.push_back(kk[0]);
        bi.push_back(kk[0]);
        if (!b_vec) bi.push_back(i[batch + (a_vec ? 0 : 1)]);
        return PrimExpr(Mul(CastTo(dt, (*a)(ai)), CastTo(dt, (*b)(bi))));
      });
  return ctx->Emit(fb, {out}, OpPatternKind::kOutEWiseFusable, call);
}

bool ForGPU(const LegalizeContext& ctx) {
  const auto* v = ctx.module()->attrs.count(String(kGPUTargetAttr))
                      ? ctx.module()->attrs.Get(String(kGPUTargetAttr)).as<IntImmNode>()
                      : nullptr;
  return v != nullptr && v->value != 0;
}

absl::StatusOr<Expr> LegalizeMatmul(const ir::relax::Call& call, LegalizeContext* ctx) {
  if (ForGPU(*ctx)) return LegalizeMatmulGPU(call, ctx);
  absl::StatusOr<std::vector<TensorSpec>> in = KernelInputs(call, {0, 1});
  if (!in.ok()) return in.status();
  return EmitKernel("matmul", MatmulKernel((*in)[0], (*in)[1], DTypeAttr(call, "out_dtype")), call, {0, 1}, ctx);
}

}  // namespace

void RegisterLinalgOps(LegalizeTable* table) { (*table)["relax.matmul"] = LegalizeMatmul; }

}  // namespace kiln::relax::legalize
