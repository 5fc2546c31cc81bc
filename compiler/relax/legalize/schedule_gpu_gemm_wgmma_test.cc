// The Hopper GEMM schedule (schedule_gpu_gemm_wgmma.h). No device runs here, so the scheduled TIR
// is evaluated on the host, thread by thread: (1) the cp.async copies put every element of every
// K tile where WgmmaOffsetA/B say, exactly once per stage; (2) what each wgmma reads through its
// descriptors, by a model of the descriptors' canonical layouts with the 128-byte swizzle (the
// PTX ISA's "Shared Memory Matrix Layout", as CUTLASS's GMMA descriptors state them), is
// A[m][k] and B[k][n] of the right K slice; (3) the epilogue stages accumulator v of thread t at
// the element WgmmaAccumulator names, covering the tile once, and copies the tile's rows to
// their rows of C. (4) which stages the schedule takes. tests/gpu checks the PTX with ptxas; tests/bench:cuda_matmul_bench runs it on a GPU.
#include "compiler/relax/legalize/schedule_gpu_gemm_wgmma.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/legalize/schedule_gpu.h"
#include "compiler/relax/legalize/testing.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

using namespace ir;  // NOLINT

constexpr int64_t kStageBytes = (kWgmmaTileM * kWgmmaTileK + kWgmmaTileK * kWgmmaTileN) * 2;
constexpr int64_t kBytesA = kWgmmaTileM * kWgmmaTileK * 2;

// R.matmul of float16 operands (m x k) (k x n) to `out`, legalized and scheduled for a GPU whose
// module attributes are `attrs`.
IRModule Scheduled(int64_t m, int64_t n, int64_t k, const std::string& out, const std::string& attrs) {
  std::string p = testing::Program(
      absl::StrCat("x: R.Tensor((", m, ", ", k, "), \"float16\"), y: R.Tensor((", k, ", ", n, "), \"float16\")"),
      absl::StrCat("R.Tensor((", m, ", ", n, "), \"", out, "\")"),
      {absl::StrCat("gv: R.Tensor((", m, ", ", n, "), \"", out, "\") = R.matmul(x, y, out_dtype=\"", out, "\")")});
  const std::string head = "class Module:\n";
  p.insert(p.find(head) + head.size(), absl::StrCat("    I.module_attrs({", attrs, "})\n"));
  absl::StatusOr<ObjectRef> parsed = script::ParseScript(p, "schedule_gpu_gemm_wgmma_test.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status() << "\n" << p;
  if (!parsed.ok()) return IRModule();
  absl::StatusOr<IRModule> legal = LegalizeOps(script::AsModule(*parsed));
  EXPECT_TRUE(legal.ok()) << legal.status();
  if (!legal.ok()) return IRModule();
  absl::StatusOr<IRModule> scheduled = ScheduleDefaultGPU(*legal);
  EXPECT_TRUE(scheduled.ok()) << scheduled.status();
  return scheduled.ok() ? *scheduled : IRModule();
}

const std::string kHopper = absl::StrCat("\"", kGPUTargetAttr, "\": True, \"", kGPUTensorCoreAttr, "\": True, \"",
                                         kGPUWgmmaAttr, "\": True");

PrimFunc TheKernel(const IRModule& m) {
  for (const auto& [gv, f] : m.Functions()) {
    if (f.as<PrimFuncNode>() != nullptr) return Downcast<PrimFunc>(f);
  }
  return PrimFunc();
}

// ---- A host evaluator of the schedule's TIR for one thread: integer expressions, the thread
// and serial loops, lets and conditions; it records the calls and stores it meets.
using Env = std::map<const VarNode*, int64_t>;

struct Event {
  std::string op;               // the call's op, or "store"
  std::vector<int64_t> values;  // its evaluated integer arguments (0 for a string or a handle)
  std::vector<const VarNode*> handles;
  int64_t kt = -1;  // the serial loop's iteration, -1 outside it
};

class ThreadRun {
 public:
  ThreadRun(Env threads, int64_t cvta) : env_(std::move(threads)), cvta_(cvta) {}
  std::vector<Event> events;

  int64_t Eval(const PrimExpr& e) {
    if (const auto* i = e.as<IntImmNode>()) return i->value;
    if (const auto* v = e.as<VarNode>()) {
      auto it = env_.find(v);
      if (it == env_.end()) ADD_FAILURE() << "unbound " << v->name;
      return it == env_.end() ? 0 : it->second;
    }
    if (const auto* c = e.as<CastNode>()) return Eval(c->value);
    if (const auto* o = e.as<AddNode>()) return Eval(o->a) + Eval(o->b);
    if (const auto* o = e.as<SubNode>()) return Eval(o->a) - Eval(o->b);
    if (const auto* o = e.as<MulNode>()) return Eval(o->a) * Eval(o->b);
    if (const auto* o = e.as<FloorDivNode>()) {
      int64_t a = Eval(o->a), b = Eval(o->b);
      return a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);
    }
    if (const auto* o = e.as<FloorModNode>()) {
      int64_t a = Eval(o->a), b = Eval(o->b), r = a % b;
      return r != 0 && (r < 0) != (b < 0) ? r + b : r;
    }
    if (const auto* o = e.as<LTNode>()) return Eval(o->a) < Eval(o->b);
    if (const auto* c = e.as<CallNode>()) {
      const std::string name = c->op.as<OpNode>() ? c->op.as<OpNode>()->name : "";
      if (name == "tirx.bitwise_xor") return Eval(c->args[0]) ^ Eval(c->args[1]);
      if (name == "tirx.cuda.cvta_generic_to_shared") return cvta_;
    }
    ADD_FAILURE() << "cannot evaluate " << e->type_key();
    return 0;
  }

  void Run(const Stmt& s) {
    if (const auto* seq = s.as<SeqStmtNode>()) {
      for (const Stmt& x : seq->seq) Run(x);
    } else if (const auto* f = s.as<ForNode>()) {
      if (f->kind == ForKind::kThreadBinding) {
        Run(f->body);  // bound by the caller
      } else {
        for (int64_t i = 0; i < Eval(f->extent); ++i) {
          env_[f->loop_var.get()] = i;
          kt_ = i;
          Run(f->body);
        }
        kt_ = -1;
      }
    } else if (const auto* l = s.as<LetStmtNode>()) {
      env_[l->var.get()] = Eval(l->value);
      Run(l->body);
    } else if (const auto* a = s.as<AllocBufferNode>()) {
      Run(a->body);
    } else if (const auto* a = s.as<AttrStmtNode>()) {
      Run(a->body);
    } else if (const auto* i = s.as<IfThenElseNode>()) {
      if (Eval(i->condition)) Run(i->then_case);
    } else if (const auto* e = s.as<EvaluateNode>()) {
      const auto* c = e->value.as<CallNode>();
      if (c == nullptr) return;
      Event ev{c->op.as<OpNode>()->name, {}, {}, kt_};
      for (const PrimExpr& x : c->args) {
        const auto* v = x.as<VarNode>();
        if (x.as<StringImmNode>() != nullptr || (v != nullptr && v->dtype.is_handle())) {
          ev.values.push_back(0);
          ev.handles.push_back(v);
        } else {
          ev.values.push_back(Eval(x));
          ev.handles.push_back(nullptr);
        }
      }
      events.push_back(std::move(ev));
    } else if (const auto* st = s.as<BufferStoreNode>()) {
      Event ev{"store", {}, {st->buffer->data.get()}, kt_};
      for (const PrimExpr& x : st->indices) ev.values.push_back(Eval(x));
      if (const auto* load = st->value.as<BufferLoadNode>()) ev.values.push_back(Eval(load->indices[0]));
      if (const auto* cast = st->value.as<CastNode>()) {
        if (const auto* load = cast->value.as<BufferLoadNode>()) ev.values.push_back(Eval(load->indices[0]));
      }
      events.push_back(std::move(ev));
    } else {
      ADD_FAILURE() << "cannot run " << s->type_key();
    }
  }

 private:
  Env env_;
  int64_t cvta_;
  int64_t kt_ = -1;
};

struct Launch {
  const VarNode *by = nullptr, *bx = nullptr, *tid = nullptr;
  const VarNode *a = nullptr, *b = nullptr, *c = nullptr;  // the params' data
};

Launch Bindings(const PrimFunc& f) {
  Launch l;
  std::vector<const VarNode*> data;
  for (const Var& p : f->params) data.push_back(f->buffer_map.Get(p)->data.get());
  l.a = data[0];
  l.b = data[1];
  l.c = data[2];
  std::function<void(const Stmt&)> find = [&](const Stmt& s) {
    if (const auto* seq = s.as<SeqStmtNode>()) {
      for (const Stmt& x : seq->seq) find(x);
    } else if (const auto* fo = s.as<ForNode>()) {
      if (fo->kind == ForKind::kThreadBinding) {
        const std::string tag = fo->thread_binding->thread_tag;
        (tag == "blockIdx.y" ? l.by : tag == "blockIdx.x" ? l.bx : l.tid) = fo->loop_var.get();
      }
      find(fo->body);
    } else if (const auto* r = s.as<SBlockRealizeNode>()) {
      find(r->block->body);
    }
  };
  find(f->body);
  return l;
}

// Whether `root` holds the wgmma kernel; the SBlock root of a scheduled function is skipped.
Stmt KernelBody(const PrimFunc& f) {
  if (const auto* r = f->body.as<SBlockRealizeNode>()) return r->block->body;
  return f->body;
}

// (1) and (2) for one block, every thread, on a GEMM of 5 K tiles (more than the stages, so the
// stages are reused), with the shared window's base 16 bytes past a 1 KiB boundary.
TEST(ScheduleGemmWgmmaStageTest, CopiesAndDescriptorsAgreeOnTheSwizzledTiles) {
  const int64_t m = 256, n = 512, k = 5 * kWgmmaTileK, by = 1, bx = 1;
  PrimFunc f = TheKernel(Scheduled(m, n, k, "float16", kHopper));
  ASSERT_TRUE(f.defined());
  Launch l = Bindings(f);
  ASSERT_TRUE(l.by && l.bx && l.tid);
  const int64_t cvta = 1024 * 3 + 16, base = 1024 * 4;
  // written[stage][byte / 16] = the (tile, operand element) copied there.
  std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>> written;
  int copies = 0;
  for (int64_t t = 0; t < 256; ++t) {
    ThreadRun run({{l.by, by}, {l.bx, bx}, {l.tid, t}}, cvta);
    run.Run(KernelBody(f));
    for (const Event& e : run.events) {
      if (e.op == "tirx.ptx_cp_async") {
        ++copies;
        ASSERT_EQ(e.values[4], 16);
        const int64_t tile = e.kt < 0 ? -1 : e.kt + kWgmmaStages - 1;  // -1: the prologue's
        int64_t dst = e.values[1] * 2 - (base - cvta), src = e.values[3];
        int64_t stage = dst / kStageBytes, in_stage = dst % kStageBytes;
        if (e.handles[2] == l.a) {
          int64_t row = src / k - by * kWgmmaTileM, col = src % k;
          int64_t kt = col / kWgmmaTileK, kc = col % kWgmmaTileK;
          ASSERT_TRUE(row >= 0 && row < kWgmmaTileM && kc % 8 == 0) << row << " " << kc;
          if (tile >= 0) {
            EXPECT_EQ(kt, tile);
          }
          EXPECT_EQ(stage, kt % kWgmmaStages);
          EXPECT_EQ(in_stage, WgmmaOffsetA(row, kc)) << "A row " << row << " k " << kc;
          written[{kt, in_stage / 16}] = {row, kc};
        } else {
          ASSERT_EQ(e.handles[2], l.b);
          int64_t krow = src / n, col = src % n - bx * kWgmmaTileN;
          int64_t kt = krow / kWgmmaTileK, kr = krow % kWgmmaTileK;
          ASSERT_TRUE(col >= 0 && col < kWgmmaTileN && col % 8 == 0) << col;
          if (tile >= 0) {
            EXPECT_EQ(kt, tile);
          }
          EXPECT_EQ(stage, kt % kWgmmaStages);
          EXPECT_EQ(in_stage, kBytesA + WgmmaOffsetB(kr, col)) << "B k " << kr << " n " << col;
          written[{kt, in_stage / 16}] = {kr, col};
        }
      }
      if (e.op == "tirx.cuda.wgmma_mma_async" && (t == 0 || t == 128)) {
        // values: shape, dtypes, acc, acc offset, desc_a, desc_b, trans_a, trans_b.
        ASSERT_EQ(e.values[8], 0);
        ASSERT_EQ(e.values[9], 1);
        const int64_t stage = e.kt % kWgmmaStages, wg = t / 128;
        static std::map<std::pair<int64_t, int64_t>, int> issued;
        const int kk = issued[{e.kt, t}]++;
        auto field = [](int64_t d, int shift) { return ((static_cast<uint64_t>(d) >> shift) & 0x3fff) << 4; };
        auto swizzle = [](int64_t addr) { return addr ^ (((addr >> 7) & 7) << 4); };
        for (int which = 0; which < 2; ++which) {
          const int64_t d = e.values[6 + which];
          ASSERT_EQ(static_cast<uint64_t>(d) >> 62, 1u) << "128-byte swizzle";
          const int64_t start = field(d, 0), lead = field(d, 16), stride = field(d, 32);
          for (int64_t i = 0; i < (which == 0 ? 64 : kWgmmaTileN); ++i) {
            for (int64_t kq = 0; kq < 16; ++kq) {
              int64_t got, want;
              if (which == 0) {  // A, K-major: 8-row groups `stride` apart, 128-byte rows.
                got = swizzle(start + (i / 8) * stride + (i % 8) * 128 + kq * 2);
                want = base + stage * kStageBytes + WgmmaOffsetA(wg * 64 + i, kk * 16 + kq);
              } else {  // B, MN-major: 64-column chunks `lead` apart, 8-row K groups `stride` apart.
                got = swizzle(start + (i / 64) * lead + (i % 64) * 2 + (kq % 8) * 128 + (kq / 8) * stride);
                want = base + stage * kStageBytes + kBytesA + WgmmaOffsetB(kk * 16 + kq, i);
              }
              ASSERT_EQ(got, want) << (which ? "B" : "A") << " kt " << e.kt << " kk " << kk << " i " << i << " k " << kq;
            }
          }
        }
      }
    }
  }
  // Every 16-byte chunk of each of the 5 tiles' A and B, once.
  EXPECT_EQ(copies, 5 * 256 * 12);
  EXPECT_EQ(written.size(), static_cast<size_t>(5 * kStageBytes / 16));
}

// (3): accumulator v of thread t goes to the element WgmmaAccumulator names (rows offset by the
// thread's warpgroup) of the shared tile, covering it once and never the rows' padding; then
// threads 0..127 each copy tile row tid to row i0 + tid of C, columns j0 .. j0 + 255.
TEST(ScheduleGemmWgmmaStageTest, EpilogueStagesTheTileAndCopiesItsRowsToC) {
  for (const char* out : {"float16", "float32"}) {
    const int64_t m = 256, n = 512, c_bytes = std::string(out) == "float16" ? 2 : 4;
    const int64_t row_bytes = kWgmmaTileN * c_bytes + 16, cvta = 1024 * 3 + 16, base = 1024 * 4;
    PrimFunc f = TheKernel(Scheduled(m, n, 64, out, kHopper));
    ASSERT_TRUE(f.defined());
    Launch l = Bindings(f);
    const VarNode* smem = nullptr;
    std::map<std::pair<int64_t, int64_t>, int> covered;
    int copies = 0;
    for (int64_t t = 0; t < 256; ++t) {
      ThreadRun run({{l.by, 1}, {l.bx, 1}, {l.tid, t}}, cvta);
      run.Run(KernelBody(f));
      for (const Event& e : run.events) {
        if (e.op == "tirx.ptx_cp_async") smem = e.handles[0];
        if (e.op == "store" && e.handles[0] == smem && smem != nullptr) {
          ASSERT_EQ(e.values.size(), 2u);
          const int64_t at = e.values[0] * c_bytes - (base - cvta);
          const int64_t row = at / row_bytes, col = (at % row_bytes) / c_bytes;
          WgmmaElement w = WgmmaAccumulator(t % 128, e.values[1]);
          EXPECT_EQ(row, (t / 128) * 64 + w.row) << out;
          EXPECT_EQ(col, w.col) << out;
          ++covered[{row, col}];
        }
        if (e.op == "tirx.cuda.bulk_copy_shared_to_global") {
          ++copies;
          EXPECT_EQ(e.handles[0], l.c);
          EXPECT_EQ(e.handles[2], smem);
          EXPECT_EQ(e.values[1], ((kWgmmaTileM + t) * n + kWgmmaTileN) * c_bytes) << out << " thread " << t;
          EXPECT_EQ(e.values[3], base - cvta + t * row_bytes) << out << " thread " << t;
          EXPECT_EQ(e.values[4], kWgmmaTileN * c_bytes);
        }
      }
    }
    EXPECT_EQ(copies, kWgmmaTileM) << out;
    EXPECT_EQ(covered.size(), static_cast<size_t>(kWgmmaTileM * kWgmmaTileN)) << out;
    for (const auto& [at, times] : covered) ASSERT_EQ(times, 1);
  }
}

// The PTX ISA's wgmma D fragment: each warp of the warpgroup owns 16 rows, laid out as the
// m16n8 accumulator of mma.sync repeated every 8 columns.
TEST(ScheduleGemmWgmmaStageTest, AccumulatorLayoutIsTheIsaFragment) {
  for (int64_t t = 0; t < 128; ++t) {
    const int64_t warp = t / 32, group = (t % 32) / 4, tig = t % 4;
    for (int64_t v = 0; v < kWgmmaTileN / 2; ++v) {
      WgmmaElement w = WgmmaAccumulator(t, v);
      const int64_t in_n8 = v % 4;  // d0..d3 of one 16 x 8 piece
      EXPECT_EQ(w.row, warp * 16 + group + (in_n8 >= 2 ? 8 : 0));
      EXPECT_EQ(w.col, (v / 4) * 8 + tig * 2 + (in_n8 & 1));
    }
  }
}

bool UsesWgmma(const IRModule& m) {
  return m.defined() && script::printer::Print(m).find("T.cuda.wgmma_mma_async(") != std::string::npos;
}

TEST(ScheduleGemmWgmmaStageTest, TakesTheFloat16GemmsItsTilesDivideOnSm90a) {
  EXPECT_TRUE(UsesWgmma(Scheduled(128, 256, 64, "float16", kHopper)));
  EXPECT_TRUE(UsesWgmma(Scheduled(256, 512, 192, "float32", kHopper)));
  const std::string printed = script::printer::Print(Scheduled(128, 256, 64, "float16", kHopper));
  // One dynamic shared buffer of 4 stages plus 1 KiB for the alignment, 256 threads.
  EXPECT_NE(printed.find("T.int64(98816)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("\"shared.dyn\""), std::string::npos) << printed;
  EXPECT_NE(printed.find("T.thread_binding(T.int64(256), thread=\"threadIdx.x\")"), std::string::npos) << printed;
  // Without the attribute (sm_80 .. sm_90 without "a"), sizes the tiles do not divide: the
  // mma.sync schedule or the SIMT one.
  const std::string sm80 = absl::StrCat("\"", kGPUTargetAttr, "\": True, \"", kGPUTensorCoreAttr, "\": True");
  EXPECT_FALSE(UsesWgmma(Scheduled(128, 256, 64, "float16", sm80)));
  EXPECT_FALSE(UsesWgmma(Scheduled(128, 128, 64, "float16", kHopper)));
  EXPECT_FALSE(UsesWgmma(Scheduled(128, 256, 32, "float16", kHopper)));
  EXPECT_FALSE(UsesWgmma(Scheduled(200, 256, 64, "float16", kHopper)));
}

}  // namespace
}  // namespace kiln::relax::legalize
