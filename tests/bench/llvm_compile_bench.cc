// Compile latency of the LLVM CPU backend for a small module (20 packed PrimFuncs, each a loop of
// one elementwise op over a flat buffer), from lowered IR to callable kernels: linked .so then
// dlopen, and in-process JIT. The peer in the same run is the C backend (C source, system cc,
// dlopen) on the same module. BM_EndToEnd_TVMScript is the whole path a compile request takes for
// such a module: TVMScript text -> parse + verify -> LowerTIR -> LLVM -> linked .so -> dlopen
// (goal: < 150 ms), at the default -opt-level=2 and at 3 (LLVM's O3). The BM_Stage_* benchmarks
// are its phases: parse, TIR lowering, object emission (IR generation + optimization + machine
// code), optimized IR alone, and linking + dlopen.
//
//   bazel run -c opt //tests/bench:llvm_compile_bench
#include <unistd.h>

#include <fstream>
#include <string>

#include "benchmark/benchmark.h"
#include "absl/strings/str_cat.h"
#include "compiler/driver/tir_pipeline.h"
#include "compiler/ir/ir.h"
#include "compiler/script/script.h"
#include "compiler/target/llvm/codegen_llvm.h"
#include "compiler/target/llvm/jit.h"
#include "compiler/target/source/c/codegen_c.h"
#include "compiler/tir/op/builtin.h"
#include "runtime/module.h"

namespace kiln {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

PrimExpr StructGet(DataType t, const Var& h, int index, tir::StructField f) {
  return Call(t, Op("tirx.tvm_struct_get"), {h, I32(index), I32(static_cast<int>(f))});
}

// kernel k: for i in range(1024): B[i] = op_k(A[i]), ops cycling through arithmetic and math.
IRModule MakeModule(int num_funcs) {
  IRModule mod = IRModule::Make();
  DataType f32 = DataType::Float(32);
  for (int k = 0; k < num_funcs; ++k) {
    Var self("self", DataType::Handle()), args("args", DataType::Handle());
    Var num_args("num_args", DataType::Int(32)), result("result", DataType::Handle());
    Buffer a = Buffer::Make("A", {I32(1024)}, f32), b = Buffer::Make("B", {I32(1024)}, f32);
    Var ha("A_handle", DataType::Handle()), hb("B_handle", DataType::Handle());
    Var i("i", DataType::Int(32));
    PrimExpr x = BufferLoad(a, {i});
    PrimExpr v;
    switch (k % 4) {
      case 0: v = Add(Mul(x, FloatImm(f32, 2.0)), FloatImm(f32, 1.0)); break;
      case 1: v = Call(f32, Op("tirx.exp"), {x}); break;
      case 2: v = Max(x, FloatImm(f32, 0.0)); break;
      default: v = Call(f32, Op("tirx.sigmoid"), {x}); break;
    }
    Stmt loop = For(i, I32(0), I32(1024), ForKind::kSerial, BufferStore(b, v, {i}));
    Stmt body = LetStmt(ha, StructGet(DataType::Handle(), args, 0, tir::StructField::kArgHandle),
                        LetStmt(a->data, StructGet(DataType::Handle(), ha, 0, tir::StructField::kTensorData),
                                LetStmt(hb, StructGet(DataType::Handle(), args, 1, tir::StructField::kArgHandle),
                                        LetStmt(b->data, StructGet(DataType::Handle(), hb, 0,
                                                                   tir::StructField::kTensorData),
                                                loop))));
    std::string name = "k" + std::to_string(k);
    Map<String, ObjectRef> attrs;
    attrs.Set(String("global_symbol"), String(name));
    attrs.Set(String("calling_conv"), IntImm(DataType::Int(32), 1));
    mod.Add(GlobalVar(name), PrimFunc({self, args, num_args, result}, body, Type(), {}, attrs));
  }
  return mod;
}

std::string SoPath(const char* stem) { return "/tmp/kiln_bench_" + std::string(stem) + std::to_string(getpid()) + ".so"; }

void BM_LLVM_SharedLibrary(benchmark::State& state) {
  IRModule mod = MakeModule(20);
  std::string path = SoPath("llvm");
  for (auto _ : state) {
    absl::Status st =
        codegen::BuildSharedLibrary(mod, "llvm -opt-level=" + std::to_string(state.range(0)), path);
    auto lib = runtime::KernelLibrary::Load(path);
    if (!st.ok() || !lib.ok()) state.SkipWithError("build failed");
    benchmark::DoNotOptimize(lib);
  }
  std::remove(path.c_str());
}
// Arg: -opt-level (0: codegen and linking alone; 3: the default).
BENCHMARK(BM_LLVM_SharedLibrary)->Unit(benchmark::kMillisecond)->Iterations(10)->Arg(0)->Arg(3);

void BM_LLVM_EmitAssembly(benchmark::State& state) {
  IRModule mod = MakeModule(20);
  for (auto _ : state) {
    auto text = codegen::EmitLLVMAssembly(mod, "llvm -opt-level=" + std::to_string(state.range(0)));
    if (!text.ok()) state.SkipWithError("codegen failed");
    benchmark::DoNotOptimize(text);
  }
}
BENCHMARK(BM_LLVM_EmitAssembly)->Unit(benchmark::kMillisecond)->Iterations(10)->Arg(0)->Arg(3);

void BM_LLVM_Jit(benchmark::State& state) {
  IRModule mod = MakeModule(20);
  for (auto _ : state) {
    auto jit = codegen::JitModule::Create(mod);
    if (!jit.ok()) state.SkipWithError("jit failed");
    benchmark::DoNotOptimize(jit);
  }
}
BENCHMARK(BM_LLVM_Jit)->Unit(benchmark::kMillisecond)->Iterations(10);

void BM_Peer_CBackend(benchmark::State& state) {
  IRModule mod = MakeModule(20);
  std::string path = SoPath("c");
  for (auto _ : state) {
    absl::StatusOr<std::string> src = codegen::GenerateC(mod);
    absl::Status st = src.ok() ? codegen::CompileCToSharedLibrary(*src, path) : src.status();
    auto lib = runtime::KernelLibrary::Load(path);
    if (!st.ok() || !lib.ok()) state.SkipWithError("build failed");
    benchmark::DoNotOptimize(lib);
  }
  std::remove(path.c_str());
}
BENCHMARK(BM_Peer_CBackend)->Unit(benchmark::kMillisecond)->Iterations(10);

// The same 20 kernels as TVMScript (one @T.prim_func per op, in an ir_module).
std::string ModuleScript(int num_funcs) {
  std::string s = "@I.ir_module\nclass Module:\n";
  for (int k = 0; k < num_funcs; ++k) {
    std::string v;
    switch (k % 4) {
      case 0: v = "A[i] * T.float32(2.0) + T.float32(1.0)"; break;
      case 1: v = "T.exp(A[i])"; break;
      case 2: v = "T.max(A[i], T.float32(0.0))"; break;
      default: v = "T.sigmoid(A[i])"; break;
    }
    absl::StrAppend(&s, "    @T.prim_func\n    def k", k,
                    "(A: T.Buffer((1024,), \"float32\"), B: T.Buffer((1024,), \"float32\")):\n"
                    "        for i in range(1024):\n            B[i] = ",
                    v, "\n\n");
  }
  return s;
}

void BM_EndToEnd_TVMScript(benchmark::State& state) {
  std::string text = ModuleScript(20);
  if (const char* dir = std::getenv("KILN_BENCH_DUMP_IR"); dir != nullptr) {
    auto parsed = script::ParseScript(text, "bench.py");
    driver::PipelineOptions po;
    po.target_kind = "llvm";
    auto lowered = driver::LowerTIR(script::AsModule(*parsed), po);
    for (int level : {0, 3}) {
      auto ir = codegen::EmitLLVMAssembly(*lowered, "llvm -opt-level=" + std::to_string(level));
      std::ofstream(std::string(dir) + "/compile_bench_O" + std::to_string(level) + ".ll")
          << (ir.ok() ? *ir : std::string(ir.status().message()));
    }
  }
  std::string path = SoPath("e2e");
  std::string target = "llvm -opt-level=" + std::to_string(state.range(0));
  for (auto _ : state) {
    auto parsed = script::ParseScript(text, "bench.py");
    if (!parsed.ok()) {
      state.SkipWithError(std::string(parsed.status().message()).c_str());
      break;
    }
    driver::PipelineOptions po;
    po.target_kind = "llvm";
    auto lowered = driver::LowerTIR(script::AsModule(*parsed), po);
    absl::Status st = lowered.ok() ? codegen::BuildSharedLibrary(*lowered, target, path) : lowered.status();
    auto lib = runtime::KernelLibrary::Load(path);
    if (!st.ok() || !lib.ok() || (*lib)->kernel_names().size() != 20) {
      state.SkipWithError("build failed");
      break;
    }
    benchmark::DoNotOptimize(lib);
  }
  std::remove(path.c_str());
}
// Arg: -opt-level (2: the default).
BENCHMARK(BM_EndToEnd_TVMScript)->Unit(benchmark::kMillisecond)->Iterations(10)->Arg(2)->Arg(3);

// The stages of BM_EndToEnd_TVMScript alone (linking and dlopen are the rest).
void BM_Stage_Parse(benchmark::State& state) {
  std::string text = ModuleScript(20);
  for (auto _ : state) benchmark::DoNotOptimize(script::ParseScript(text, "bench.py"));
}
BENCHMARK(BM_Stage_Parse)->Unit(benchmark::kMillisecond)->Iterations(10);

ir::IRModule ParsedModule() { return script::AsModule(*script::ParseScript(ModuleScript(20), "bench.py")); }

void BM_Stage_LowerTIR(benchmark::State& state) {
  ir::IRModule mod = ParsedModule();
  driver::PipelineOptions po;
  po.target_kind = "llvm";
  for (auto _ : state) benchmark::DoNotOptimize(driver::LowerTIR(mod, po));
}
BENCHMARK(BM_Stage_LowerTIR)->Unit(benchmark::kMillisecond)->Iterations(10);

void BM_Stage_ObjectFile(benchmark::State& state) {
  driver::PipelineOptions po;
  po.target_kind = "llvm";
  ir::IRModule lowered = *driver::LowerTIR(ParsedModule(), po);
  std::string target = "llvm -opt-level=" + std::to_string(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(codegen::EmitObjectFile(lowered, target));
}
BENCHMARK(BM_Stage_ObjectFile)->Unit(benchmark::kMillisecond)->Iterations(10)->DenseRange(0, 3);

void BM_Stage_OptimizedIR(benchmark::State& state) {
  driver::PipelineOptions po;
  po.target_kind = "llvm";
  ir::IRModule lowered = *driver::LowerTIR(ParsedModule(), po);
  std::string target = "llvm -opt-level=" + std::to_string(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(codegen::EmitLLVMAssembly(lowered, target));
}
BENCHMARK(BM_Stage_OptimizedIR)->Unit(benchmark::kMillisecond)->Iterations(10)->DenseRange(0, 3);

// Linking the default-level object into a .so and dlopen()ing it. Arg 0: the default linker (the
// system ld for the host); 1: ld.lld-16, for comparison.
void BM_Stage_LinkAndLoad(benchmark::State& state) {
  driver::PipelineOptions po;
  po.target_kind = "llvm";
  ir::IRModule lowered = *driver::LowerTIR(ParsedModule(), po);
  absl::StatusOr<codegen::LLVMTarget> target = codegen::ParseLLVMTarget("llvm");
  absl::StatusOr<std::string> object = codegen::EmitObjectFile(lowered, "llvm");
  codegen::LinkOptions options;
  if (state.range(0) == 1) options.linker = "ld.lld-16";
  std::string path = SoPath("link");
  for (auto _ : state) {
    absl::Status st = codegen::LinkSharedLibrary(*object, target->triple, path, options);
    auto lib = runtime::KernelLibrary::Load(path);
    if (!st.ok() || !lib.ok()) {
      state.SkipWithError("link failed");
      break;
    }
    benchmark::DoNotOptimize(lib);
  }
  std::remove(path.c_str());
}
BENCHMARK(BM_Stage_LinkAndLoad)->Unit(benchmark::kMillisecond)->Iterations(10)->Arg(0)->Arg(1);

}  // namespace
}  // namespace kiln

BENCHMARK_MAIN();
