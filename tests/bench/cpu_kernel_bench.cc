// Throughput of kernels compiled by the LLVM CPU backend from hand-scheduled TVMScript, each next to
// its peer measured in the same run on the same cores:
//   * elementwise add of 2^24 float32 (parallel + vectorized TIR) vs memcpy of the same buffer,
//     compared as memory bandwidth (bytes read + written per second; the goal is >= 80%);
//   * a 1024^3 float32 matmul (B packed into 16-wide panels, 4x16 register tiles, K blocked,
//     vectorized, parallel over row blocks) vs OpenBLAS cblas_sgemm (goal >= 50%).
// Results are checked before timing (add exactly, matmul against sgemm), so a fast wrong kernel
// cannot report a figure. KILN_BENCH_DUMP_IR=<dir> writes each kernel's optimized LLVM IR there;
// KILN_BENCH_CHECKED=1 builds the kernels in checked mode (`kiln build --checked`), so the two runs
// give checked mode's overhead.
//
//   bazel run -c opt //tests/bench:cpu_kernel_bench
//   KILN_BENCH_CHECKED=1 bazel run -c opt //tests/bench:cpu_kernel_bench
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "compiler/script/script.h"
#include "tests/bench/jit_kernel.h"
#include "runtime/kernel_abi.h"
#include "runtime/thread_pool.h"

namespace kiln {
namespace {

constexpr int64_t kAddN = int64_t{1} << 24;
constexpr int kMatN = 1024;

// 2^24 = 1024 parallel chunks x 1024 vectors of 16 lanes.
constexpr char kAddScript[] = R"(
@T.prim_func
def vadd(A: T.Buffer((16777216,), "float32"), B: T.Buffer((16777216,), "float32"), C: T.Buffer((16777216,), "float32")):
    for io in T.parallel(1024):
        for ii in range(1024):
            for v in T.vectorized(16):
                C[io * 16384 + ii * 16 + v] = A[io * 16384 + ii * 16 + v] + B[io * 16384 + ii * 16 + v]
)";

// C = A @ B. B is packed into 64 panels Bp[jo, k, 0:16] (contiguous along k), then each task
// computes a 4-row stripe: for each 256-deep K block and each 16-wide column panel, a 4x16 tile of
// C lives in registers (acc) while k runs, and is added back into C. The inner update is an
// explicit fused multiply-add.
constexpr char kMatmulScript[] = R"(
@T.prim_func
def matmul(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"), C: T.Buffer((1024, 1024), "float32")):
    Bp = T.alloc_buffer((64, 1024, 16))
    for jo in T.parallel(64):
        for k in range(1024):
            for ji in T.vectorized(16):
                Bp[jo, k, ji] = B[k, jo * 16 + ji]
    for io in T.parallel(256):
        for ii in range(4):
            for jo in range(64):
                for j in T.vectorized(16):
                    C[io * 4 + ii, jo * 16 + j] = T.float32(0.0)
        for ko in range(4):
            for jo in range(64):
                acc = T.alloc_local((4, 16))
                for ii in T.unroll(4):
                    for ji in T.vectorized(16):
                        acc[ii, ji] = T.float32(0.0)
                for k in range(256):
                    for ii in T.unroll(4):
                        for ji in T.vectorized(16):
                            acc[ii, ji] = T.fma(A[io * 4 + ii, ko * 256 + k], Bp[jo, ko * 256 + k, ji], acc[ii, ji])
                for ii in T.unroll(4):
                    for ji in T.vectorized(16):
                        C[io * 4 + ii, jo * 16 + ji] = C[io * 4 + ii, jo * 16 + ji] + acc[ii, ji]
)";

// TVMScript -> LowerTIR -> LLVM JIT for the host.
std::unique_ptr<codegen::JitModule> Compile(const char* script, const char* name) {
  auto parsed = script::ParseScript(script, std::string(name) + ".py");
  if (!parsed.ok()) bench::Die(name, parsed.status());
  return bench::JitCompile(script::AsModule(*parsed), name);
}

using bench::Floats;
using bench::Tensor;

// Everything the benchmarks share, built once: the thread pool (all cores), kernels and buffers.
struct Setup {
  runtime::ThreadPool pool{0};
  std::unique_ptr<codegen::JitModule> add = Compile(kAddScript, "vadd");
  std::unique_ptr<codegen::JitModule> matmul = Compile(kMatmulScript, "matmul");
  Floats a{kAddN}, b{kAddN}, c{kAddN};
  Floats ma{kMatN * kMatN}, mb{kMatN * kMatN}, mc{kMatN * kMatN}, ref{kMatN * kMatN};

  Setup() {
    for (int64_t i = 0; i < kAddN; ++i) {
      a.p[i] = static_cast<float>(i % 1000) * 0.5f;
      b.p[i] = 3.0f - static_cast<float>(i % 77);
    }
    for (int64_t i = 0; i < kMatN * kMatN; ++i) {
      ma.p[i] = static_cast<float>((i * 7) % 13) * 0.25f - 1.0f;
      mb.p[i] = static_cast<float>((i * 5) % 11) * 0.125f - 0.5f;
    }
  }

  void RunAdd() {
    Tensor ta(a.p, {kAddN}), tb(b.p, {kAddN}), tc(c.p, {kAddN});
    KilnAny args[3] = {ta.Arg(), tb.Arg(), tc.Arg()};
    absl::Status st = add->Call("vadd", args, 3, nullptr, pool.env());
    if (!st.ok()) Die("vadd", st);
  }
  void RunMatmul() {
    Tensor ta(ma.p, {kMatN, kMatN}), tb(mb.p, {kMatN, kMatN}), tc(mc.p, {kMatN, kMatN});
    KilnAny args[3] = {ta.Arg(), tb.Arg(), tc.Arg()};
    absl::Status st = matmul->Call("matmul", args, 3, nullptr, pool.env());
    if (!st.ok()) Die("matmul", st);
  }
  void RunSgemm(float* out) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kMatN, kMatN, kMatN, 1.0f, ma.p, kMatN, mb.p, kMatN,
                0.0f, out, kMatN);
  }
  static void Die(const char* what, const absl::Status& st) {
    std::fprintf(stderr, "%s failed: %s\n", what, std::string(st.message()).c_str());
    std::exit(1);
  }

  // The kernels compute the right thing (run once before any timing).
  void Check() {
    RunAdd();
    for (int64_t i = 0; i < kAddN; ++i) {
      if (c.p[i] != a.p[i] + b.p[i]) {
        std::fprintf(stderr, "vadd wrong at %ld: %g vs %g\n", static_cast<long>(i), c.p[i], a.p[i] + b.p[i]);
        std::exit(1);
      }
    }
    RunMatmul();
    RunSgemm(ref.p);
    double worst = 0;
    for (int64_t i = 0; i < kMatN * kMatN; ++i) {
      worst = std::max(worst, std::fabs(double{mc.p[i]} - ref.p[i]) / std::max(1.0, std::fabs(double{ref.p[i]})));
    }
    if (worst > 1e-4) {
      std::fprintf(stderr, "matmul differs from sgemm: max relative error %g\n", worst);
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

void BM_Kiln_VectorAdd(benchmark::State& state) {
  Setup& s = Shared();
  for (auto _ : state) s.RunAdd();
  // Bytes moved per call: A and B read, C written.
  state.SetBytesProcessed(state.iterations() * 3 * kAddN * 4);
}
BENCHMARK(BM_Kiln_VectorAdd)->Unit(benchmark::kMillisecond)->UseRealTime();

// The peer: one memcpy of the same 64 MiB per thread of the same pool, each thread its slice.
int32_t CopySlice(int64_t begin, int64_t end, void* closure) {
  auto* s = static_cast<Setup*>(closure);
  std::memcpy(s->c.p + begin, s->a.p + begin, (end - begin) * sizeof(float));
  return 0;
}
void BM_Peer_MemcpyParallel(benchmark::State& state) {
  Setup& s = Shared();
  for (auto _ : state) s.pool.ParallelFor(kAddN, CopySlice, &s);
  state.SetBytesProcessed(state.iterations() * 2 * kAddN * 4);
}
BENCHMARK(BM_Peer_MemcpyParallel)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Peer_Memcpy(benchmark::State& state) {
  Setup& s = Shared();
  for (auto _ : state) std::memcpy(s.c.p, s.a.p, kAddN * sizeof(float));
  state.SetBytesProcessed(state.iterations() * 2 * kAddN * 4);
}
BENCHMARK(BM_Peer_Memcpy)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Kiln_Matmul(benchmark::State& state) {
  Setup& s = Shared();
  for (auto _ : state) s.RunMatmul();
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * kMatN * kMatN * kMatN * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Kiln_Matmul)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Peer_OpenBLAS_Sgemm(benchmark::State& state) {
  Setup& s = Shared();
  openblas_set_num_threads(s.pool.num_threads());  // the same cores as the pool
  for (auto _ : state) s.RunSgemm(s.ref.p);
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * kMatN * kMatN * kMatN * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Peer_OpenBLAS_Sgemm)->Unit(benchmark::kMillisecond)->UseRealTime();

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
    double add = 3.0 * kAddN * 4 / t("BM_Kiln_VectorAdd/real_time") / 1e9;
    double cp = 2.0 * kAddN * 4 / t("BM_Peer_Memcpy/real_time") / 1e9;
    double cpp = 2.0 * kAddN * 4 / t("BM_Peer_MemcpyParallel/real_time") / 1e9;
    double best = std::max(cp, cpp);
    double flops = 2.0 * kMatN * kMatN * kMatN;
    double mm = flops / t("BM_Kiln_Matmul/real_time") / 1e9, blas = flops / t("BM_Peer_OpenBLAS_Sgemm/real_time") / 1e9;
    std::printf("\n%-34s %12s %12s %8s %6s\n", "", "kiln", "peer", "ratio", "goal");
    std::printf("%-34s %9.2f GB/s %7.2f GB/s %7.1f%% %5s\n", "vadd 2^24 f32 vs memcpy (best)", add, best,
                100 * add / best, ">=80%");
    std::printf("%-34s %5.1f GFLOP/s %5.1f GFLOP/s %6.1f%% %5s\n", "matmul 1024^3 f32 vs sgemm", mm, blas,
                100 * mm / blas, ">=50%");
    std::printf("(memcpy single thread %.2f GB/s, parallel %.2f GB/s; %d threads)\n", cp, cpp,
                Shared().pool.num_threads());
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
