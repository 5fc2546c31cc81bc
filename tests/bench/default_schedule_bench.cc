// The kernels that LegalizeOps generates with their default CPU schedules (no user-written TIR),
// each next to its peer measured in the same run on the same cores:
//   * R.matmul 1024^3 float32 (MatmulKernel) vs OpenBLAS cblas_sgemm (goal >= 80%);
//   * R.nn.conv2d NCHW 1x64x56x56, 64 filters 3x3, pad 1 (ConvKernel) vs oneDNN on the same NCHW /
//     OIHW tensors (goal >= 80%); also shown: oneDNN with the blocked layouts it prefers, inputs
//     reordered outside the timing (its best case, not the same contract);
//   * R.add of 2^24 float32 (LegalizeOps + ScheduleDefaultCPU) vs memcpy of the same buffer, as
//     memory bandwidth (bytes read + written per second; goal >= 80% of the better memcpy), and
//     vs a plain C++ loop (what numpy's np.add(a, b, out=c) runs, one thread).
// Results are checked against the peer before timing, so a fast wrong kernel cannot report a
// figure. KILN_BENCH_DUMP_IR=<dir> writes each kernel's optimized LLVM IR there. KILN_BENCH_THREADS=n
// runs kiln's pool and OpenBLAS on n threads (default: all cores; set OMP_NUM_THREADS=n as well for
// oneDNN), e.g. 1 to compare the kernels themselves on a loaded machine.
//
//   bazel run -c opt //tests/bench:default_schedule_bench
#include <cblas.h>

#include "oneapi/dnnl/dnnl.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/legalize/linalg.h"
#include "compiler/relax/legalize/nn_conv.h"
#include "compiler/relax/legalize/schedule.h"
#include "compiler/script/script.h"
#include "tests/bench/jit_kernel.h"
#include "runtime/kernel_abi.h"
#include "runtime/thread_pool.h"

namespace kiln {
namespace {

using relax::legalize::Int64;
using relax::legalize::TensorSpec;

constexpr int kMatN = 1024;
constexpr int64_t kAddN = int64_t{1} << 24;
constexpr char kAddModule[] = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16777216,), "float32"), y: R.Tensor((16777216,), "float32")) -> R.Tensor((16777216,), "float32"):
        gv = R.add(x, y)
        return gv
)";
// conv2d: N, C = O, H = W, kernel 3x3, pad 1 (output H x W).
constexpr int64_t kConvC = 64, kConvHW = 56, kConvK = 3;
constexpr int64_t kConvIn = kConvC * kConvHW * kConvHW, kConvW = kConvC * kConvC * kConvK * kConvK;
constexpr double kConvFlops = 2.0 * kConvC * kConvHW * kConvHW * kConvC * kConvK * kConvK;

using bench::Die;
using bench::Floats;
using bench::Tensor;

std::vector<ir::PrimExpr> Dims(std::initializer_list<int64_t> s) {
  std::vector<ir::PrimExpr> d;
  for (int64_t x : s) d.push_back(Int64(x));
  return d;
}

// A generated PrimFunc -> LowerTIR -> LLVM JIT for the host.
std::unique_ptr<codegen::JitModule> Compile(const absl::StatusOr<ir::PrimFunc>& func, const std::string& name) {
  if (!func.ok()) Die(name, func.status());
  ir::IRModule mod = ir::IRModule::Make();
  ir::Map<ir::String, ir::ObjectRef> attrs = (*func)->attrs;
  attrs.Set(ir::String("global_symbol"), ir::String(name));  // exported under `name`
  mod.Add(ir::GlobalVar(name), ir::PrimFunc((*func)->params, (*func)->body, (*func)->ret_type, (*func)->buffer_map, attrs));
  return bench::JitCompile(mod, name);
}

double MaxRelError(const float* got, const float* want, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    worst = std::max(worst, std::fabs(double{got[i]} - want[i]) / std::max(1.0, std::fabs(double{want[i]})));
  }
  return worst;
}

// The PrimFunc LegalizeOps makes for R.add, with the default CPU schedule.
absl::StatusOr<ir::PrimFunc> LegalizedAdd() {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(kAddModule, "add.py");
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<ir::IRModule> legal = relax::legalize::LegalizeOps(script::AsModule(*parsed));
  if (!legal.ok()) return legal.status();
  absl::StatusOr<ir::IRModule> scheduled = relax::legalize::ScheduleDefaultCPU(*legal);
  if (!scheduled.ok()) return scheduled.status();
  for (const auto& [gv, f] : scheduled->Functions()) {
    if (f.as<ir::PrimFuncNode>() != nullptr) return ir::Downcast<ir::PrimFunc>(f);
  }
  return absl::NotFoundError("LegalizeOps made no PrimFunc for R.add");
}

relax::legalize::ConvSpec ConvBenchSpec() {
  relax::legalize::ConvSpec spec;
  spec.data = {Dims({1, kConvC, kConvHW, kConvHW}), ir::DataType::Float(32)};
  spec.weight = {Dims({kConvC, kConvC, kConvK, kConvK}), ir::DataType::Float(32)};
  spec.strides = {1, 1};
  spec.padding = {1, 1, 1, 1};
  return spec;
}

// oneDNN's forward-inference convolution on f32 tensors with layout tags `act` (src, dst) and
// `wei`; format_tag::any lets oneDNN pick its blocked layouts.
struct DnnlConv {
  using tag = dnnl::memory::format_tag;
  DnnlConv(const dnnl::engine& eng, tag act, tag wei) {
    using dt = dnnl::memory::data_type;
    dnnl::memory::dims src{1, kConvC, kConvHW, kConvHW}, w{kConvC, kConvC, kConvK, kConvK}, pad{1, 1}, st{1, 1};
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                      dnnl::memory::desc(src, dt::f32, act), dnnl::memory::desc(w, dt::f32, wei),
                                      dnnl::memory::desc(src, dt::f32, act), st, pad, pad);
    pd = dnnl::convolution_forward::primitive_desc(d, eng);
    conv = dnnl::convolution_forward(pd);
  }
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
};

// Everything the benchmarks share, built once: the thread pool (all cores), kernels and buffers.
int BenchThreads() {
  const char* n = std::getenv("KILN_BENCH_THREADS");
  return n != nullptr ? std::atoi(n) : 0;
}

struct Setup {
  runtime::ThreadPool pool{BenchThreads()};
  std::unique_ptr<codegen::JitModule> matmul =
      Compile(relax::legalize::MatmulKernel({Dims({kMatN, kMatN}), ir::DataType::Float(32)},
                                            {Dims({kMatN, kMatN}), ir::DataType::Float(32)}, ir::DataType::Void()),
              "matmul");
  Floats ma{kMatN * kMatN}, mb{kMatN * kMatN}, mc{kMatN * kMatN}, ref{kMatN * kMatN};
  std::unique_ptr<codegen::JitModule> conv = Compile(relax::legalize::ConvKernel(ConvBenchSpec()), "conv2d");
  Floats cx{kConvIn}, cw{kConvW}, cy{kConvIn}, cref{kConvIn};
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  DnnlConv plain{eng, DnnlConv::tag::nchw, DnnlConv::tag::oihw};
  DnnlConv blocked{eng, DnnlConv::tag::any, DnnlConv::tag::any};
  dnnl::memory px{plain.pd.src_desc(), eng, cx.p}, pw{plain.pd.weights_desc(), eng, cw.p}, py{plain.pd.dst_desc(), eng, cref.p};
  dnnl::memory bx{blocked.pd.src_desc(), eng}, bw{blocked.pd.weights_desc(), eng}, by{blocked.pd.dst_desc(), eng};

  std::unique_ptr<codegen::JitModule> add = Compile(LegalizedAdd(), "add");
  Floats a{kAddN}, b{kAddN}, c{kAddN};

  Setup() {
    for (int64_t i = 0; i < kAddN; ++i) {
      a.p[i] = static_cast<float>(i % 1000) * 0.5f;
      b.p[i] = 3.0f - static_cast<float>(i % 77);
    }
    for (int64_t i = 0; i < kConvIn; ++i) cx.p[i] = static_cast<float>((i * 3) % 17) * 0.125f - 1.0f;
    for (int64_t i = 0; i < kConvW; ++i) cw.p[i] = static_cast<float>((i * 11) % 7) * 0.25f - 0.75f;
    // The blocked peer's inputs, converted once.
    dnnl::reorder(px, bx).execute(strm, px, bx);
    dnnl::reorder(pw, bw).execute(strm, pw, bw);
    strm.wait();
    for (int64_t i = 0; i < kMatN * kMatN; ++i) {
      ma.p[i] = static_cast<float>((i * 7) % 13) * 0.25f - 1.0f;
      mb.p[i] = static_cast<float>((i * 5) % 11) * 0.125f - 0.5f;
    }
  }

  void RunMatmul() {
    Tensor ta(ma.p, {kMatN, kMatN}), tb(mb.p, {kMatN, kMatN}), tc(mc.p, {kMatN, kMatN});
    KilnAny args[3] = {ta.Arg(), tb.Arg(), tc.Arg()};
    absl::Status st = matmul->Call("matmul", args, 3, nullptr, pool.env());
    if (!st.ok()) Die("matmul", st);
  }
  void RunAdd() {
    Tensor ta(a.p, {kAddN}), tb(b.p, {kAddN}), tc(c.p, {kAddN});
    KilnAny args[3] = {ta.Arg(), tb.Arg(), tc.Arg()};
    absl::Status st = add->Call("add", args, 3, nullptr, pool.env());
    if (!st.ok()) Die("add", st);
  }
  void RunConv() {
    Tensor tx(cx.p, {1, kConvC, kConvHW, kConvHW}), tw(cw.p, {kConvC, kConvC, kConvK, kConvK});
    Tensor ty(cy.p, {1, kConvC, kConvHW, kConvHW});
    KilnAny args[3] = {tx.Arg(), tw.Arg(), ty.Arg()};
    absl::Status st = conv->Call("conv2d", args, 3, nullptr, pool.env());
    if (!st.ok()) Die("conv2d", st);
  }
  void RunDnnl(DnnlConv& c, dnnl::memory& x, dnnl::memory& w, dnnl::memory& y) {
    c.conv.execute(strm, {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, y}});
    strm.wait();
  }
  void RunSgemm(float* out) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kMatN, kMatN, kMatN, 1.0f, ma.p, kMatN, mb.p, kMatN,
                0.0f, out, kMatN);
  }

  // The kernels compute what their peers compute (run once before any timing).
  void Check() {
    RunAdd();
    for (int64_t i = 0; i < kAddN; ++i) {
      if (c.p[i] != a.p[i] + b.p[i]) {
        std::fprintf(stderr, "add wrong at %ld: %g vs %g\n", static_cast<long>(i), c.p[i], a.p[i] + b.p[i]);
        std::exit(1);
      }
    }
    RunMatmul();
    RunSgemm(ref.p);
    if (double e = MaxRelError(mc.p, ref.p, int64_t{kMatN} * kMatN); e > 1e-4) {
      std::fprintf(stderr, "matmul differs from sgemm: max relative error %g\n", e);
      std::exit(1);
    }
    RunConv();
    RunDnnl(plain, px, pw, py);
    if (double e = MaxRelError(cy.p, cref.p, kConvIn); e > 1e-4) {
      std::fprintf(stderr, "conv2d differs from oneDNN: max relative error %g\n", e);
      std::exit(1);
    }
  }
};

Setup& Shared() {
  static Setup* s = [] {
    auto* setup = new Setup();
    setup->Check();
    return setup;
  }();
  return *s;
}

void BM_Kiln_Add(benchmark::State& state) {
  Setup& s = Shared();
  for (auto _ : state) s.RunAdd();
}
BENCHMARK(BM_Kiln_Add)->Unit(benchmark::kMillisecond)->UseRealTime();

// What np.add(a, b, out=c) does: one thread, one loop the C++ compiler vectorizes.
void BM_Peer_LoopAdd(benchmark::State& state) {
  Setup& s = Shared();
  for (auto _ : state) {
    const float *x = s.a.p, *y = s.b.p;
    float* z = s.c.p;
    for (int64_t i = 0; i < kAddN; ++i) z[i] = x[i] + y[i];
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Peer_LoopAdd)->Unit(benchmark::kMillisecond)->UseRealTime();

// memcpy of the same 64 MiB per thread of the pool, each thread its slice; and on one thread.
int32_t CopySlice(int64_t begin, int64_t end, void* closure) {
  auto* s = static_cast<Setup*>(closure);
  std::memcpy(s->c.p + begin, s->a.p + begin, (end - begin) * sizeof(float));
  return 0;
}
void BM_Peer_MemcpyParallel(benchmark::State& state) {
  Setup& s = Shared();
  for (auto _ : state) s.pool.ParallelFor(kAddN, CopySlice, &s);
}
BENCHMARK(BM_Peer_MemcpyParallel)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Peer_Memcpy(benchmark::State& state) {
  Setup& s = Shared();
  for (auto _ : state) std::memcpy(s.c.p, s.a.p, kAddN * sizeof(float));
}
BENCHMARK(BM_Peer_Memcpy)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Kiln_Matmul(benchmark::State& state) {
  Setup& s = Shared();
  for (auto _ : state) s.RunMatmul();
}
BENCHMARK(BM_Kiln_Matmul)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Peer_OpenBLAS_Sgemm(benchmark::State& state) {
  Setup& s = Shared();
  openblas_set_num_threads(s.pool.num_threads());  // the same cores as the pool
  for (auto _ : state) s.RunSgemm(s.ref.p);
}
BENCHMARK(BM_Peer_OpenBLAS_Sgemm)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Kiln_Conv2d(benchmark::State& state) {
  Setup& s = Shared();
  for (auto _ : state) s.RunConv();
}
BENCHMARK(BM_Kiln_Conv2d)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Peer_OneDNN_Conv2d_NCHW(benchmark::State& state) {
  Setup& s = Shared();
  for (auto _ : state) s.RunDnnl(s.plain, s.px, s.pw, s.py);
  state.SetLabel(s.plain.pd.impl_info_str());
}
BENCHMARK(BM_Peer_OneDNN_Conv2d_NCHW)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Peer_OneDNN_Conv2d_Blocked(benchmark::State& state) {
  Setup& s = Shared();
  for (auto _ : state) s.RunDnnl(s.blocked, s.bx, s.bw, s.by);
  state.SetLabel(s.blocked.pd.impl_info_str());
}
BENCHMARK(BM_Peer_OneDNN_Conv2d_Blocked)->Unit(benchmark::kMillisecond)->UseRealTime();

// Console output plus a closing table of kiln's figure beside its peer's.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Iteration) seconds_[r.benchmark_name()] = r.GetAdjustedRealTime() / 1e3;  // ms -> s
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    auto t = [&](const char* n) { return seconds_.count(n) ? seconds_[n] : NAN; };
    double add = 3.0 * kAddN * 4 / t("BM_Kiln_Add/real_time") / 1e9;
    double loop = 3.0 * kAddN * 4 / t("BM_Peer_LoopAdd/real_time") / 1e9;
    double cp = 2.0 * kAddN * 4 / t("BM_Peer_Memcpy/real_time") / 1e9;
    double cpp = 2.0 * kAddN * 4 / t("BM_Peer_MemcpyParallel/real_time") / 1e9;
    double flops = 2.0 * kMatN * kMatN * kMatN;
    double mm = flops / t("BM_Kiln_Matmul/real_time") / 1e9, blas = flops / t("BM_Peer_OpenBLAS_Sgemm/real_time") / 1e9;
    std::printf("\n%-40s %14s %14s %8s %6s\n", "", "kiln", "peer", "ratio", "goal");
    std::printf("%-40s %9.2f GB/s %9.2f GB/s %6.1f%% %5s\n", "add 2^24 f32 vs memcpy (better of 1/all)", add,
                std::max(cp, cpp), 100 * add / std::max(cp, cpp), ">=80%");
    std::printf("%-40s %9.2f GB/s %9.2f GB/s %6.1f%% %5s\n", "add 2^24 f32 vs C++ loop (np.add)", add, loop,
                100 * add / loop, ">=80%");
    std::printf("%-40s %7.1f GFLOP/s %7.1f GFLOP/s %6.1f%% %5s\n", "matmul 1024^3 f32 vs OpenBLAS sgemm", mm, blas,
                100 * mm / blas, ">=80%");
    double cv = kConvFlops / t("BM_Kiln_Conv2d/real_time") / 1e9;
    double dn = kConvFlops / t("BM_Peer_OneDNN_Conv2d_NCHW/real_time") / 1e9;
    double db = kConvFlops / t("BM_Peer_OneDNN_Conv2d_Blocked/real_time") / 1e9;
    std::printf("%-40s %7.1f GFLOP/s %7.1f GFLOP/s %6.1f%% %5s\n", "conv2d 1x64x56x56 k3 vs oneDNN (NCHW)", cv, dn,
                100 * cv / dn, ">=80%");
    std::printf("%-40s %7.1f GFLOP/s %7.1f GFLOP/s %6.1f%%\n", "conv2d vs oneDNN blocked (its best case)", cv, db,
                100 * cv / db);
    std::printf("(%d threads)\n", Shared().pool.num_threads());
  }

 private:
  std::map<std::string, double> seconds_;
};

}  // namespace
}  // namespace kiln

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  kiln::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
