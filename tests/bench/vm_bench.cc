// VM dispatch cost: one Call instruction of a trivial packed builtin, measured as a VM function of
// 1000 calls (vm.builtin.copy of a tensor register into another; vm.builtin.null_value with no
// arguments), beside its peers in the same run: the same builtin called 1000 times from a C++ loop
// with the same argument vector, through a std::function and through a plain function pointer.
// The goal is < 100 ns per Call.
//
//   bazel run -c opt //tests/bench:vm_bench
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "runtime/vm/builtins.h"
#include "runtime/vm/testing/assembler.h"
#include "runtime/vm/vm.h"

namespace kiln::vm {
namespace {

constexpr int kCalls = 1000;

std::vector<Value> TensorArg() {
  return {Value::Tensor(*runtime::Tensor::Empty({4}, DLDataType{kDLFloat, 32, 1}))};
}

std::unique_ptr<VirtualMachine> MakeVM(bool copy) {
  testing::Assembler a;
  a.Begin("main", 1, {"x"});
  for (int i = 0; i < kCalls; ++i) {
    if (copy) {
      a.Call("vm.builtin.copy", {testing::R(0)}, 1);
    } else {
      a.Call("vm.builtin.null_value", {}, 1);
    }
  }
  a.Ret(1);
  a.End();
  VMOptions o;
  o.num_threads = 1;
  return *VirtualMachine::Create(std::make_shared<const Executable>(a.Finish()), o);
}

void BM_Kiln_VMCall_Copy(benchmark::State& state) {
  std::unique_ptr<VirtualMachine> vm = MakeVM(true);
  std::vector<Value> args = TensorArg();
  for (auto _ : state) benchmark::DoNotOptimize(vm->Invoke("main", args));
}

void BM_Kiln_VMCall_NullValue(benchmark::State& state) {
  std::unique_ptr<VirtualMachine> vm = MakeVM(false);
  std::vector<Value> args = TensorArg();
  for (auto _ : state) benchmark::DoNotOptimize(vm->Invoke("main", args));
}

// A context for calling the builtin outside a VM (copy never touches it).
struct NoVM : BuiltinContext {
  int num_devices() const override { return 0; }
  absl::StatusOr<Allocator*> allocator(int64_t) override { return absl::InternalError("no VM"); }
  absl::StatusOr<Value> InvokeClosure(const Value&, absl::Span<const Value>) override { return absl::InternalError("no VM"); }
  void ClearAllocatorCaches() override {}
};

template <typename Fn>
void CallLoop(benchmark::State& state, Fn fn) {
  NoVM ctx;
  std::vector<Value> args = TensorArg();
  std::vector<Value> regs(2);
  for (auto _ : state) {
    for (int i = 0; i < kCalls; ++i) {
      benchmark::DoNotOptimize(fn);
      absl::StatusOr<Value> r = fn(ctx, args);
      regs[1] = *std::move(r);
    }
    benchmark::DoNotOptimize(regs);
  }
}

void BM_Peer_StdFunctionCall(benchmark::State& state) {
  CallLoop(state, std::function<absl::StatusOr<Value>(BuiltinContext&, absl::Span<const Value>)>(
                      LookupBuiltin("vm.builtin.copy")));
}

void BM_Peer_FunctionPointerCall(benchmark::State& state) { CallLoop(state, LookupBuiltin("vm.builtin.copy")); }

BENCHMARK(BM_Kiln_VMCall_Copy);
BENCHMARK(BM_Kiln_VMCall_NullValue);
BENCHMARK(BM_Peer_StdFunctionCall);
BENCHMARK(BM_Peer_FunctionPointerCall);

// Console output plus a closing table: nanoseconds per call, kiln's VM beside its peers.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      // CPU time: on a shared machine the wall clock also counts other processes' time slices.
      if (r.run_type == Run::RT_Iteration) ns_[r.benchmark_name()] = r.GetAdjustedCPUTime() / kCalls;
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    auto t = [&](const char* n) { return ns_.count(n) ? ns_[n] : NAN; };
    double vm = t("BM_Kiln_VMCall_Copy"), vm_null = t("BM_Kiln_VMCall_NullValue");
    double stdf = t("BM_Peer_StdFunctionCall"), fp = t("BM_Peer_FunctionPointerCall");
    std::printf("\n%-44s %10s %6s\n", "per call (ns of CPU time)", "", "goal");
    std::printf("%-44s %10.1f %6s\n", "kiln VM Call vm.builtin.copy(%0)", vm, "<100");
    std::printf("%-44s %10.1f %6s\n", "kiln VM Call vm.builtin.null_value()", vm_null, "<100");
    std::printf("%-44s %10.1f\n", "peer: std::function call of the builtin", stdf);
    std::printf("%-44s %10.1f\n", "peer: function pointer call of the builtin", fp);
    std::printf("VM dispatch overhead over the std::function call: %.1f ns (%.2fx)\n", vm - stdf, vm / stdf);
  }

 private:
  std::map<std::string, double> ns_;  // GetAdjustedCPUTime is in ns (the default unit)
};

}  // namespace
}  // namespace kiln::vm

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  kiln::vm::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
