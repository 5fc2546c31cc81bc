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
constexpr int kDepth = 128;  // the deepest k block; the blocks of a constant k are made equal
// Parallel tasks to aim for: enough that a static split over a few threads is balanced within a
// few percent (the thread pool gives each thread one contiguous range of tasks).
constexpr int kTasks = 16;
// Up to this many register tiles of rows (48 rows), all rows form one group and the tasks split the
// columns instead: the small-batch products of an MLP would otherwise have one or two tasks.
constexpr int kOneGroupTiles = 8;
// A task that sweeps at least this many panels packs its group's rows of a per k block (6 rows
// side by side per k, contiguous): the broadcasts then read one stream instead of 6 rows whose
// stride may alias in L1 (a power-of-two k), at a cost of about 1/panels of the task's time.
constexpr int kPackAPanels = 16;
// Products of fewer multiply-adds than this run on the calling thread: waking the pool costs
// microseconds, as much as the whole product (the last layer of an MLP).
constexpr int64_t kParallelWork = int64_t{1} << 18;

// A view of a parameter buffer's memory with another (compact) shape.
Buffer View(const Buffer& b, const std::string& name, std::vector<PrimExpr> shape) {
  auto n = make_object<BufferNode>();
  n->data = b->data;
  n->dtype = b->dtype;
  n->shape = Array<PrimExpr>(shape);
  n->name = name;
  return Buffer(ObjectPtr<Object>(std::move(n)));
}

// a / b for a constant or symbolic b.
PrimExpr DivBy(const PrimExpr& a, const PrimExpr& b) {
  int64_t c = ConstOr(b, -1);
  return c > 0 ? FloorDivBy(a, c) : PrimExpr(FloorDiv(a, b));
}

int64_t CeilDivInt(int64_t a, int64_t b) { return (a + b - 1) / b; }

// One 2-D product C[M, N] = A[M, K] @ B[K, N], seen through accessors so that batch indices,
// 1-D operands and views need no special cases here. Plan() picks the schedule's sizes from the
// (possibly symbolic) shape; Compute() emits it.
struct Gemm {
  PrimExpr m, n, k;
  DataType dtype;                                                      // accumulation and result
  std::function<PrimExpr(const PrimExpr&, const PrimExpr&)> a_at;      // (i, k) -> a value
  std::function<PrimExpr(const PrimExpr&, const PrimExpr&)> b_at;      // (k, j) -> b value
  std::function<std::pair<Buffer, std::vector<PrimExpr>>(const PrimExpr&, const PrimExpr&)> c_at;  // (i, j)

  // ---- the plan
  PrimExpr tiles, rest;        // whole kRows-row tiles, and the rows below them (< kRows)
  PrimExpr panels;             // whole kLanes-column panels
  bool maybe_rest = true, maybe_partial = true;  // rows below the tiles / a partial last panel
  PrimExpr row_groups;         // tasks split the tiles into this many balanced groups...
  int64_t col_chunks = 1;      // ...and the panels into this many chunks of chunk_panels
  PrimExpr chunk_panels;
  PrimExpr kc, k_blocks;       // k block depth and count
  bool parallel = true, pack_b = true, pack_a = false;
  int64_t group_max = 0;       // the most tiles in a group (when pack_a)
  Buffer packed;               // (ceil(N/16), K, 16) when pack_b

  void Plan() {
    const int64_t mc = ConstOr(m, -1), nc = ConstOr(n, -1), kk = ConstOr(k, -1);
    tiles = FloorDivBy(m, kRows);
    rest = Minus(m, Times(tiles, Int64(kRows)));
    panels = FloorDivBy(n, kLanes);
    maybe_rest = mc < 0 || mc % kRows != 0;
    maybe_partial = nc < 0 || nc % kLanes != 0;
    parallel = !(mc >= 0 && nc >= 0 && kk >= 0 && mc * nc * kk < kParallelWork);
    const bool few_rows = mc >= 0 && CeilDivInt(mc, kRows) <= kOneGroupTiles;
    row_groups = few_rows ? Int64(1) : MaxOf(Int64(1), CeilDivBy(tiles, kGroup));
    // Column chunks: as many as it takes to reach kTasks tasks, none empty.
    int64_t groups = ConstOr(row_groups, -1), np = ConstOr(panels, -1);
    col_chunks = 1;
    chunk_panels = panels;
    if (groups > 0 && np > 0 && groups < kTasks) {
      int64_t per = CeilDivInt(np, std::min(np, CeilDivInt(kTasks, groups)));
      col_chunks = CeilDivInt(np, per);
      chunk_panels = Int64(per);
    }
    // b is packed into panels unless every panel is whole and few row tiles read it (then packing
    // would cost about as much as the product reads).
    pack_b = !(few_rows && nc > 0 && nc % kLanes == 0);
    if (kk > 0) {
      int64_t blocks = CeilDivInt(kk, kDepth);
      kc = Int64(CeilDivInt(kk, blocks));
    } else {
      kc = Int64(kDepth);
    }
    k_blocks = MaxOf(Int64(1), CeilDivBy(k, ConstOr(kc, kDepth)));  // k = 0 still writes zeros
    int64_t tc = ConstOr(tiles, -1);
    pack_a = tc > 0 && groups > 0 && kk > 0 && ConstOr(chunk_panels, 0) >= kPackAPanels;
    group_max = pack_a ? CeilDivInt(tc, groups) : 0;
    if (pack_b) packed = Buffer::Make("B_packed", {CeilDivBy(n, kLanes), k, Int64(kLanes)}, dtype);
  }

  ForKind ParallelKind() const { return parallel ? ForKind::kParallel : ForKind::kSerial; }

  Stmt StoreC(const PrimExpr& i, const PrimExpr& j, const PrimExpr& v) const {
    auto [buf, idx] = c_at(i, j);
    return Store(buf, v, idx);
  }
  PrimExpr LoadC(const PrimExpr& i, const PrimExpr& j) const {
    auto [buf, idx] = c_at(i, j);
    return Load(buf, idx);
  }
  // b[kg, jo * 16 + ji], from the packed panels or from b itself.
  PrimExpr BAt(const PrimExpr& kg, const PrimExpr& jo, const PrimExpr& ji) const {
    return pack_b ? Load(packed, {jo, kg, ji}) : b_at(kg, Plus(Times(jo, Int64(kLanes)), ji));
  }

  // packed[jo, k, ji] = B[k, jo * 16 + ji], zero past column N.
  Stmt Pack() const {
    Stmt full = Loop("jo", panels, ParallelKind(), [&](const PrimExpr& jo) {
      return Loop("k", k, ForKind::kSerial, [&](const PrimExpr& kk) {
        return Loop("ji", Int64(kLanes), ForKind::kVectorized, [&](const PrimExpr& ji) {
          return Store(packed, b_at(kk, Plus(Times(jo, Int64(kLanes)), ji)), {jo, kk, ji});
        });
      });
    });
    Stmt partial = LoopFrom("jo", panels, Minus(CeilDivBy(n, kLanes), panels), ForKind::kSerial,
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

  // The register tile of `rows` rows from r0 and panel jo over k block ko (from k0, `depth` deep),
  // a's values from a_tile(ii, kk) (kk within the block): accumulate in registers, then write
  // into C (the first k block stores, later ones add).
  Stmt Tile(int rows, const PrimExpr& r0, const std::function<PrimExpr(PrimExpr, PrimExpr)>& a_tile,
            const PrimExpr& ko, const PrimExpr& k0, const PrimExpr& depth, const PrimExpr& jo, bool full_panel) const {
    Buffer acc = Buffer::Make("acc", {Int64(rows), Int64(kLanes)}, dtype, "local");
    auto each = [&](ForKind lane_kind, const PrimExpr& lanes, const std::function<Stmt(PrimExpr, PrimExpr)>& f) {
      return Loop("ii", Int64(rows), ForKind::kUnrolled, [&](const PrimExpr& ii) {
        return Loop("ji", lanes, lane_kind, [&](const PrimExpr& ji) { return f(ii, ji); });
      });
    };
    Stmt init = each(ForKind::kVectorized, Int64(kLanes),
                     [&](PrimExpr ii, PrimExpr ji) { return Store(acc, Const(dtype, 0), {ii, ji}); });
    Stmt update = Loop("k", depth, ForKind::kSerial, [&](const PrimExpr& kk) {
      return each(ForKind::kVectorized, Int64(kLanes), [&](PrimExpr ii, PrimExpr ji) {
        PrimExpr v = FusedMulAdd(a_tile(ii, kk), BAt(Plus(k0, kk), jo, ji), Load(acc, {ii, ji}));
        return Store(acc, v, {ii, ji});
      });
    });
    PrimExpr lanes = full_panel ? Int64(kLanes) : Minus(n, Times(jo, Int64(kLanes)));
    ForKind kind = full_panel ? ForKind::kVectorized : ForKind::kSerial;
    auto write = [&](bool add) {
      return each(kind, lanes, [&](PrimExpr ii, PrimExpr ji) {
        PrimExpr i = Plus(r0, ii), j = Plus(Times(jo, Int64(kLanes)), ji);
        PrimExpr v = Load(acc, {ii, ji});
        return StoreC(i, j, add ? PrimExpr(Add(LoadC(i, j), v)) : v);
      });
    };
    Stmt out = IsConst(k_blocks, 1) ? write(false) : Stmt(ir::IfThenElse(EQ(ko, Int64(0)), write(false), write(true)));
    return Allocate(acc, Seq({init, update, out}));
  }

  // One task: the tiles of row group rg and the panels of column chunk cc, k block by k block;
  // the last group also takes the rows below the tiles and the last chunk the partial panel.
  Stmt Task(const PrimExpr& rg, const PrimExpr& cc) const {
    const bool one_group = IsConst(row_groups, 1);
    PrimExpr t0 = one_group ? Int64(0) : DivBy(Times(rg, tiles), row_groups);
    PrimExpr t1 = one_group ? tiles : DivBy(Times(Plus(rg, Int64(1)), tiles), row_groups);
    PrimExpr count = Minus(t1, t0);
    PrimExpr p0 = Times(cc, chunk_panels);
    PrimExpr pc = col_chunks == 1 ? panels : MinOf(chunk_panels, Minus(panels, p0));
    PrimExpr last_group = one_group ? PrimExpr() : PrimExpr(EQ(rg, Minus(row_groups, Int64(1))));
    PrimExpr last_chunk = col_chunks == 1 ? PrimExpr() : PrimExpr(EQ(cc, Int64(col_chunks - 1)));
    auto when = [](const PrimExpr& cond, Stmt s) {
      return cond.defined() && !IsNoOp(s) ? Stmt(ir::IfThenElse(cond, s)) : s;
    };
    Buffer apack;
    if (pack_a) apack = Buffer::Make("A_packed", {Int64(group_max), kc, Int64(kRows)}, dtype);

    auto block = [&](const PrimExpr& ko) {
      PrimExpr k0 = Times(ko, kc);
      bool whole = ConstOr(k, 1) % ConstOr(kc, 1) == 0 && ConstOr(k, -1) > 0;
      PrimExpr depth = IsConst(k_blocks, 1) ? k : whole ? kc : MinOf(kc, Minus(k, k0));
      auto direct = [&](const PrimExpr& r0) {
        return [&, r0](PrimExpr ii, PrimExpr kk) { return a_at(Plus(r0, ii), Plus(k0, kk)); };
      };
      Stmt pack;
      if (pack_a) {
        pack = Loop("it", count, ForKind::kSerial, [&](const PrimExpr& it) {
          return Loop("k", depth, ForKind::kSerial, [&](const PrimExpr& kk) {
            return Loop("ii", Int64(kRows), ForKind::kUnrolled, [&](const PrimExpr& ii) {
              PrimExpr row = Plus(Times(Plus(t0, it), Int64(kRows)), ii);
              return Store(apack, a_at(row, Plus(k0, kk)), {it, kk, ii});
            });
          });
        });
      }
      auto tiles_of = [&](const PrimExpr& jo, bool full) {
        return Loop("it", count, ForKind::kSerial, [&](const PrimExpr& it) {
          PrimExpr r0 = Times(Plus(t0, it), Int64(kRows));
          if (pack_a) {
            auto packed_a = [&](PrimExpr ii, PrimExpr kk) { return Load(apack, {it, kk, ii}); };
            return Tile(kRows, r0, packed_a, ko, k0, depth, jo, full);
          }
          return Tile(kRows, r0, direct(r0), ko, k0, depth, jo, full);
        });
      };
      Stmt main = LoopFrom("jo", p0, pc, ForKind::kSerial, [&](const PrimExpr& jo) { return tiles_of(jo, true); });
      Stmt partial;
      if (maybe_partial) {
        partial = when(last_chunk, when(LT(Times(panels, Int64(kLanes)), n), tiles_of(panels, false)));
      }
      // The rows below the tiles: one tile of that many rows for a constant m, else 1-row tiles.
      Stmt rest_rows;
      if (maybe_rest) {
        auto rest_tiles = [&](int rows, const PrimExpr& r0) {
          Stmt whole_panels =
              LoopFrom("jo", p0, pc, ForKind::kSerial, [&](const PrimExpr& jo) { return Tile(rows, r0, direct(r0), ko, k0, depth, jo, true); });
          Stmt part;
          if (maybe_partial) {
            part = when(last_chunk, when(LT(Times(panels, Int64(kLanes)), n),
                                         Tile(rows, r0, direct(r0), ko, k0, depth, panels, false)));
          }
          return Seq({whole_panels, part});
        };
        PrimExpr r0 = Times(tiles, Int64(kRows));
        int64_t r = ConstOr(rest, -1);
        if (r > 0) {
          rest_rows = when(last_group, rest_tiles(static_cast<int>(r), r0));
        } else if (r < 0) {
          rest_rows = when(last_group, Loop("ir", rest, ForKind::kSerial,
                                            [&](const PrimExpr& i) { return rest_tiles(1, Plus(r0, i)); }));
        }
      }
      return Seq({pack, main, partial, rest_rows});
    };
    Stmt body = IsConst(k_blocks, 1) ? block(Int64(0)) : Loop("ko", k_blocks, ForKind::kSerial, block);
    return pack_a ? Allocate(apack, body) : body;
  }

  // Packs B (when planned), then runs the tasks: row groups x column chunks, in parallel.
  Stmt Compute() const {
    PrimExpr tasks = Times(row_groups, Int64(col_chunks));
    ForKind kind = IsConst(tasks, 1) ? ForKind::kSerial : ParallelKind();
    Stmt main = Loop("t", tasks, kind, [&](const PrimExpr& t) {
      if (col_chunks == 1) return Task(t, Int64(0));
      if (IsConst(row_groups, 1)) return Task(Int64(0), t);
      return Task(FloorDivBy(t, col_chunks), FloorMod(t, Int64(col_chunks)));
    });
    return Seq({pack_b ? Pack() : Stmt(), main});
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
    g.Plan();
    Stmt body = g.pack_b ? Allocate(g.packed, g.Compute()) : g.Compute();
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
    return g.Compute();
  };
  g.Plan();
  Stmt body = g.pack_b ? Allocate(g.packed, nest(0)) : nest(0);
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

absl::StatusOr<Expr> LegalizeMatmul(const ir::relax::Call& call, LegalizeContext* ctx) {
  if (ctx->for_gpu()) return LegalizeMatmulGPU(call, ctx);
  absl::StatusOr<std::vector<TensorSpec>> in = KernelInputs(call, {0, 1});
  if (!in.ok()) return in.status();
  return EmitKernel("matmul", MatmulKernel((*in)[0], (*in)[1], DTypeAttr(call, "out_dtype")), call, {0, 1}, ctx);
}

}  // namespace

void RegisterLinalgOps(LegalizeTable* table) { (*table)["relax.matmul"] = LegalizeMatmul; }

}  // namespace kiln::relax::legalize
