// Builds lowered-form PrimFuncs by hand (the contract of runtime/kernel_abi.h), compiles them with
// the LLVM backend, both JIT-compiled in process and linked into a shared library, and calls them
// through the kernel ABI. The first cases mirror compiler/target/source/c/codegen_c_test.cc.
#include "compiler/target/llvm/codegen_llvm.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/target/llvm/jit.h"
#include "compiler/tir/op/builtin.h"
#include "compiler/target/testing/lowered_ir.h"
#include "gtest/gtest.h"
#include "runtime/module.h"
#include "runtime/thread_pool.h"

namespace kiln::codegen {
namespace {

using namespace ir;  // NOLINT
using tir::StructField;
using namespace testing;  // NOLINT

PrimExpr F32(double v) { return FloatImm(DataType::Float(32), v); }

IRModule OneKernel(const std::string& name, const PrimFunc& f) {
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar(name), f);
  return mod;
}

enum class Path { kJit, kSharedLibrary };

std::unique_ptr<runtime::KernelModule> Build(const IRModule& mod, const std::string& stem, Path path) {
  if (path == Path::kJit) {
    auto jit = JitModule::Create(mod);
    EXPECT_TRUE(jit.ok()) << jit.status();
    return jit.ok() ? std::move(*jit) : nullptr;
  }
  std::string so = TempLibraryPath(stem);
  absl::Status st = BuildSharedLibrary(mod, "llvm", so);
  EXPECT_TRUE(st.ok()) << st;
  if (!st.ok()) return nullptr;
  auto lib = runtime::KernelLibrary::Load(so);
  EXPECT_TRUE(lib.ok()) << lib.status();
  return lib.ok() ? std::move(*lib) : nullptr;
}

class BothPaths : public ::testing::TestWithParam<Path> {};
INSTANTIATE_TEST_SUITE_P(LLVM, BothPaths, ::testing::Values(Path::kJit, Path::kSharedLibrary),
                         [](const auto& info) { return info.param == Path::kJit ? "Jit" : "SharedLibrary"; });

// B[i] = A[i] * 2 + 1 for i in [0, 16), with an argument-count check; `kind` picks serial/parallel.
IRModule AxpyModule(ForKind kind) {
  Entry e;
  FlatArg a("A", 16, DataType::Float(32)), b("B", 16, DataType::Float(32));
  Var i("i", DataType::Int(32));
  Stmt store = BufferStore(b.buf, Add(Mul(BufferLoad(a.buf, {i}), F32(2.0)), F32(1.0)), {i});
  Stmt loop = For(i, I32(0), I32(16), kind, store);
  Stmt body = SeqStmt({AssertStmt(EQ(e.num_args, I32(2)), "TypeError", {String("Expected 2 arguments")}),
                       a.Bind(e, 0, b.Bind(e, 1, loop))});
  return OneKernel("axpy", e.Make("axpy", body));
}

void CheckAxpy(const runtime::KernelModule& lib, const KilnKernelEnv* env) {
  std::vector<float> A(16), B(16, 0);
  for (int i = 0; i < 16; ++i) A[i] = 0.5f * i - 3;
  int64_t shape[1] = {16};
  DLTensor ta = Tensor1D(A.data(), shape, {kDLFloat, 32, 1}), tb = Tensor1D(B.data(), shape, {kDLFloat, 32, 1});
  KilnAny args[2] = {TensorArg(&ta), TensorArg(&tb)};
  ASSERT_TRUE(lib.Call("axpy", args, 2, nullptr, env).ok());
  for (int i = 0; i < 16; ++i) EXPECT_EQ(B[i], A[i] * 2 + 1) << i;
  absl::Status bad = lib.Call("axpy", args, 1, nullptr, env);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "TypeError: Expected 2 arguments");
}

TEST_P(BothPaths, SerialLoopThroughKernelAbi) {
  auto lib = Build(AxpyModule(ForKind::kSerial), "axpy_serial", GetParam());
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->kernel_names(), std::vector<std::string>{"axpy"});
  EXPECT_FALSE(lib->GetKernel("nope").ok());
  CheckAxpy(*lib, nullptr);
}

TEST_P(BothPaths, ParallelLoopRunsOnPoolAndSerially) {
  auto lib = Build(AxpyModule(ForKind::kParallel), "axpy_parallel", GetParam());
  ASSERT_NE(lib, nullptr);
  runtime::ThreadPool pool(3);
  CheckAxpy(*lib, pool.env());
  CheckAxpy(*lib, nullptr);
}

// Returns floordiv/floormod/truncdiv results through tirx.ret.
TEST_P(BothPaths, IntegerSemanticsAndReturn) {
  Entry e;
  Var x("x", DataType::Int(32)), y("y", DataType::Int(32));
  PrimExpr fd = FloorDiv(x, y), fm = FloorMod(x, y), td = Div(x, y), tm = Mod(x, y);
  // result = fd * 1000000 + (fm + 100) * 10000 + (td + 100) * 100 + (tm + 50)
  PrimExpr combined = Add(Add(Add(Mul(fd, I32(1000000)), Mul(Add(fm, I32(100)), I32(10000))),
                              Mul(Add(td, I32(100)), I32(100))),
                          Add(tm, I32(50)));
  Stmt body = LetStmt(x, Cast(DataType::Int(32), StructGet(DataType::Int(64), e.args, 0, StructField::kArgInt64)),
                      LetStmt(y, Cast(DataType::Int(32), StructGet(DataType::Int(64), e.args, 1, StructField::kArgInt64)),
                              Evaluate(Call(DataType::Int(32), Op("tirx.ret"), {combined}))));
  auto lib = Build(OneKernel("divs", e.Make("divs", body)), "divs", GetParam());
  ASSERT_NE(lib, nullptr);
  auto run = [&](int64_t a, int64_t b) {
    KilnAny args[2];
    args[0].type_index = args[1].type_index = kKilnInt;
    args[0].v_int64 = a;
    args[1].v_int64 = b;
    KilnAny result{};
    EXPECT_TRUE(lib->Call("divs", args, 2, &result).ok());
    EXPECT_EQ(result.type_index, kKilnInt);
    return result.v_int64;
  };
  // -7 // 2 = -4, -7 % 2 = 1 (floor); trunc: -3, -1.
  EXPECT_EQ(run(-7, 2), -4 * 1000000 + 101 * 10000 + 97 * 100 + 49);
  EXPECT_EQ(run(7, -2), -4 * 1000000 + 99 * 10000 + 97 * 100 + 51);
  EXPECT_EQ(run(7, 2), 3 * 1000000 + 101 * 10000 + 103 * 100 + 51);
  EXPECT_EQ(run(-8, 2), -4 * 1000000 + 100 * 10000 + 96 * 100 + 50);
}

TEST_P(BothPaths, Int8WrapsAndVectorStores) {
  Entry e;
  FlatArg a("A", 8, DataType::Int(8)), b("B", 8, DataType::Int(8));
  // B[ramp(0,1,8)] = A[ramp(0,1,8)] * broadcast(100) + broadcast(100): wraps in int8.
  PrimExpr ramp = Ramp(I32(0), I32(1), 8);
  PrimExpr c100 = Broadcast(IntImm(DataType::Int(8), 100), 8);
  Stmt store = BufferStore(b.buf, Add(Mul(BufferLoad(a.buf, {ramp}), c100), c100), {ramp});
  auto lib = Build(OneKernel("wrap", e.Make("wrap", a.Bind(e, 0, b.Bind(e, 1, store)))), "wrap", GetParam());
  ASSERT_NE(lib, nullptr);
  std::vector<int8_t> A = {0, 1, 2, -1, -2, 3, 127, -128}, B(8, 0);
  int64_t shape[1] = {8};
  DLTensor ta = Tensor1D(A.data(), shape, {kDLInt, 8, 1}), tb = Tensor1D(B.data(), shape, {kDLInt, 8, 1});
  KilnAny args[2] = {TensorArg(&ta), TensorArg(&tb)};
  ASSERT_TRUE(lib->Call("wrap", args, 2, nullptr).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(B[i], static_cast<int8_t>(static_cast<uint8_t>(A[i] * 100 + 100))) << i;
}

TEST(CodegenLLVMTest, RejectsUnflattenedBuffers) {
  Entry e;
  Buffer b2 = Buffer::Make("C", {I32(4), I32(4)}, DataType::Float(32));
  Stmt store = BufferStore(b2, F32(0), {I32(0), I32(0)});
  absl::StatusOr<std::string> ir = EmitLLVMAssembly(OneKernel("bad", e.Make("bad", AllocBuffer(b2, store))), "llvm");
  ASSERT_FALSE(ir.ok());
  EXPECT_EQ(ir.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ir.status().message().find("not flattened"), std::string::npos) << ir.status();
}

// An intrinsic the backend has no lowering for is UNIMPLEMENTED, named with its source position.
TEST(CodegenLLVMTest, IntrinsicWithoutLoweringIsUnimplementedAtItsCall) {
  Entry e;
  Span at;
  at.source = std::make_shared<const std::string>("kernel.py");
  at.line = 4;
  at.column = 9;
  Stmt body = Evaluate(Call(DataType::Void(), Op("tirx.nvshmem.quiet"), {}, at));
  absl::StatusOr<std::string> ir = EmitLLVMAssembly(OneKernel("pe", e.Make("pe", body)), "llvm");
  ASSERT_FALSE(ir.ok());
  EXPECT_EQ(ir.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(ir.status().message().find("the LLVM backend does not support T.nvshmem.quiet at kernel.py:4:9"),
            std::string::npos)
      << ir.status();
}

TEST(CodegenLLVMTest, RejectsGpuThreadBindings) {
  Entry e;
  Var tx("threadIdx.x", DataType::Int(32));
  IterVar iv(Range(I32(0), I32(32)), tx, IterVarType::kThreadIndex, "threadIdx.x");
  Stmt body = AttrStmt(iv, "thread_extent", I32(32), Evaluate(I32(0)));
  absl::StatusOr<std::string> ir = EmitLLVMAssembly(OneKernel("gpu", e.Make("gpu", body)), "llvm");
  ASSERT_FALSE(ir.ok());
  EXPECT_NE(ir.status().message().find("thread bindings"), std::string::npos) << ir.status();
}

// float16 <-> float32 by bits, so the test needs no _Float16 support in the C++ compiler.
float HalfToFloat(uint16_t h) {
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v = exp == 0 ? std::ldexp(static_cast<float>(mant), -24) : std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
  return (h & 0x8000) ? -v : v;
}

// B[i] = A[i] * A[i] + 0.5 - A[i] / 4 in float16, with a float16 -> float32 cast into C.
TEST_P(BothPaths, Float16Arithmetic) {
  Entry e;
  DataType f16 = DataType::Float(16);
  FlatArg a("A", 8, f16), b("B", 8, f16), c("C", 8, DataType::Float(32));
  Var i("i", DataType::Int(32));
  PrimExpr x = BufferLoad(a.buf, {i});
  PrimExpr y = Sub(Add(Mul(x, x), FloatImm(f16, 0.5)), Div(x, FloatImm(f16, 4.0)));
  Stmt body = For(i, I32(0), I32(8), ForKind::kSerial,
                  SeqStmt({BufferStore(b.buf, y, {i}),
                           BufferStore(c.buf, Cast(DataType::Float(32), BufferLoad(b.buf, {i})), {i})}));
  auto lib = Build(OneKernel("half", e.Make("half", a.Bind(e, 0, b.Bind(e, 1, c.Bind(e, 2, body))))), "half",
                   GetParam());
  ASSERT_NE(lib, nullptr);
  // 0, 0.25, ..., 1.75 and their results are exact in float16.
  std::vector<uint16_t> A = {0x0000, 0x3400, 0x3800, 0x3a00, 0x3c00, 0x3d00, 0x3e00, 0x3f00}, B(8);
  std::vector<float> C(8);
  int64_t shape[1] = {8};
  DLTensor ta = Tensor1D(A.data(), shape, {kDLFloat, 16, 1}), tb = Tensor1D(B.data(), shape, {kDLFloat, 16, 1});
  DLTensor tc = Tensor1D(C.data(), shape, {kDLFloat, 32, 1});
  KilnAny args[3] = {TensorArg(&ta), TensorArg(&tb), TensorArg(&tc)};
  ASSERT_TRUE(lib->Call("half", args, 3, nullptr).ok());
  for (int k = 0; k < 8; ++k) {
    float v = 0.25f * k;
    EXPECT_EQ(HalfToFloat(A[k]), v);
    EXPECT_EQ(HalfToFloat(B[k]), v * v + 0.5f - v / 4) << k;
    EXPECT_EQ(C[k], HalfToFloat(B[k])) << k;
  }
}

// Every float math intrinsic the backend maps (LLVM intrinsic or libm call) against libm.
TEST(CodegenLLVMTest, MathIntrinsicsMatchLibm) {
  struct Case {
    const char* op;
    double (*ref)(double);
  };
  const std::vector<Case> cases = {
      {"exp", [](double x) { return std::exp(x); }},
      {"log", [](double x) { return std::log(x); }},
      {"sqrt", [](double x) { return std::sqrt(x); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"erf", [](double x) { return std::erf(x); }},
      {"sin", [](double x) { return std::sin(x); }},
      {"atan", [](double x) { return std::atan(x); }},
      {"log1p", [](double x) { return std::log1p(x); }},
      {"floor", [](double x) { return std::floor(x); }},
      {"round", [](double x) { return std::nearbyint(x); }},
      {"rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
      {"sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
      {"exp10", [](double x) { return std::pow(10.0, x); }},
  };
  const int n = 8;
  Entry e;
  FlatArg a("A", n, DataType::Float(32)), b("B", n * static_cast<int64_t>(cases.size()), DataType::Float(32));
  FlatArg d("D", n, DataType::Float(64)), r("R", n * static_cast<int64_t>(cases.size()), DataType::Float(64));
  std::vector<Stmt> stores;
  Var i("i", DataType::Int(32));
  for (size_t k = 0; k < cases.size(); ++k) {
    PrimExpr at = Add(i, I32(static_cast<int64_t>(k) * n));
    stores.push_back(BufferStore(b.buf, Call(DataType::Float(32), Op(std::string("tirx.") + cases[k].op),
                                             {BufferLoad(a.buf, {i})}),
                                 {at}));
    stores.push_back(BufferStore(r.buf, Call(DataType::Float(64), Op(std::string("tirx.") + cases[k].op),
                                             {BufferLoad(d.buf, {i})}),
                                 {at}));
  }
  Stmt loop = For(i, I32(0), I32(n), ForKind::kSerial, SeqStmt(stores));
  auto lib = JitModule::Create(
      OneKernel("math", e.Make("math", a.Bind(e, 0, b.Bind(e, 1, d.Bind(e, 2, r.Bind(e, 3, loop)))))));
  ASSERT_TRUE(lib.ok()) << lib.status();
  std::vector<float> A = {0.1f, 0.5f, 0.9f, 1.5f, 2.5f, 3.25f, 0.75f, 1.0f}, B(n * cases.size());
  std::vector<double> D(A.begin(), A.end()), R(n * cases.size());
  int64_t sa[1] = {n}, sb[1] = {static_cast<int64_t>(B.size())};
  DLTensor ta = Tensor1D(A.data(), sa, {kDLFloat, 32, 1}), tb = Tensor1D(B.data(), sb, {kDLFloat, 32, 1});
  DLTensor td = Tensor1D(D.data(), sa, {kDLFloat, 64, 1}), tr = Tensor1D(R.data(), sb, {kDLFloat, 64, 1});
  KilnAny args[4] = {TensorArg(&ta), TensorArg(&tb), TensorArg(&td), TensorArg(&tr)};
  ASSERT_TRUE((*lib)->Call("math", args, 4, nullptr).ok());
  for (size_t k = 0; k < cases.size(); ++k) {
    for (int j = 0; j < n; ++j) {
      double want = cases[k].ref(A[j]);
      EXPECT_NEAR(B[k * n + j], want, 2e-6 * std::max(1.0, std::fabs(want))) << cases[k].op << "(" << A[j] << ")";
      EXPECT_NEAR(R[k * n + j], want, 1e-14 * std::max(1.0, std::fabs(want))) << cases[k].op << "(" << A[j] << ")";
    }
  }
}

// for i in range(4): B[i*8 : i*8+8] = A[i*8 : i*8+8] * 3 (float32x8 Ramp accesses).
IRModule VectorModule() {
  Entry e;
  FlatArg a("A", 32, DataType::Float(32)), b("B", 32, DataType::Float(32));
  Var i("i", DataType::Int(32));
  PrimExpr ramp = Ramp(Mul(i, I32(8)), I32(1), 8);
  Stmt store = BufferStore(b.buf, Mul(BufferLoad(a.buf, {ramp}), Broadcast(F32(3.0), 8)), {ramp});
  Stmt loop = For(i, I32(0), I32(4), ForKind::kSerial, store);
  return OneKernel("vscale", e.Make("vscale", a.Bind(e, 0, b.Bind(e, 1, loop))));
}

TEST(CodegenLLVMTest, VectorExpressionsBecomeLLVMVectors) {
  absl::StatusOr<std::string> ir = EmitLLVMAssembly(VectorModule(), "llvm -opt-level=0");
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find("<8 x float>"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("@kiln_kernel_names"), std::string::npos);
  auto lib = JitModule::Create(VectorModule());
  ASSERT_TRUE(lib.ok()) << lib.status();
  std::vector<float> A(32), B(32);
  for (int k = 0; k < 32; ++k) A[k] = k - 10.5f;
  int64_t shape[1] = {32};
  DLTensor ta = Tensor1D(A.data(), shape, {kDLFloat, 32, 1}), tb = Tensor1D(B.data(), shape, {kDLFloat, 32, 1});
  KilnAny args[2] = {TensorArg(&ta), TensorArg(&tb)};
  ASSERT_TRUE((*lib)->Call("vscale", args, 2, nullptr).ok());
  for (int k = 0; k < 32; ++k) EXPECT_EQ(B[k], A[k] * 3) << k;
}

// Temporaries on the stack and on the heap, a While loop with a lazy if_then_else guard, a
// Shuffle, and a float return value.
TEST_P(BothPaths, TemporariesControlFlowAndFloatReturn) {
  Entry e;
  const int64_t big = 8192;  // 32 KiB: heap
  Buffer small = Buffer::Make("S", {I32(4)}, DataType::Float(32));
  Buffer large = Buffer::Make("L", {I32(big)}, DataType::Float(32));
  Var i("i", DataType::Int(32));
  Buffer counter = Buffer::Make("k", {I32(1)}, DataType::Int(32));
  PrimExpr k = BufferLoad(counter, {I32(0)});
  // L[i] = i % 2; S = shuffle([1,2], [3,4]) reversed; sum L[k] while k < big (if_then_else guards
  // the out-of-range read at k == big), plus S[0].
  Buffer acc = Buffer::Make("acc", {I32(1)}, DataType::Float(32));
  PrimExpr guarded = Call(DataType::Float(32), Op("tirx.if_then_else"),
                          {LT(k, I32(big)), BufferLoad(large, {k}), F32(0)});
  Stmt body = SeqStmt({
      For(i, I32(0), I32(big), ForKind::kSerial, BufferStore(large, Cast(DataType::Float(32), FloorMod(i, I32(2))), {i})),
      BufferStore(small,
                  Shuffle({Ramp(F32(1), F32(1), 2), Ramp(F32(3), F32(1), 2)}, {I32(3), I32(2), I32(1), I32(0)}),
                  {Ramp(I32(0), I32(1), 4)}),
      BufferStore(counter, I32(0), {I32(0)}),
      BufferStore(acc, F32(0), {I32(0)}),
      While(LE(k, I32(big)), SeqStmt({BufferStore(acc, Add(BufferLoad(acc, {I32(0)}), guarded), {I32(0)}),
                                       BufferStore(counter, Add(k, I32(1)), {I32(0)})})),
      Evaluate(Call(DataType::Float(32), Op("tirx.ret"),
                    {Add(BufferLoad(acc, {I32(0)}), BufferLoad(small, {I32(0)}))})),
  });
  Stmt allocs = AllocBuffer(small, AllocBuffer(large, AllocBuffer(counter, AllocBuffer(acc, body))));
  auto lib = Build(OneKernel("temps", e.Make("temps", allocs)), "temps", GetParam());
  ASSERT_NE(lib, nullptr);
  KilnAny result{};
  ASSERT_TRUE(lib->Call("temps", nullptr, 0, &result).ok());
  EXPECT_EQ(result.type_index, kKilnFloat);
  EXPECT_EQ(result.v_float64, big / 2 + 4.0);
}

// An internal helper PrimFunc called from the entry, and break/continue in a serial loop.
TEST_P(BothPaths, HelperCallBreakAndContinue) {
  Var hx("x", DataType::Int(32));
  PrimFunc sq({hx}, Evaluate(Call(DataType::Int(32), Op("tirx.ret"), {Mul(hx, hx)})), PrimType(DataType::Int(32)));
  Entry e;
  Var x("x", DataType::Int(32)), i("i", DataType::Int(32));
  Buffer acc = Buffer::Make("acc", {I32(1)}, DataType::Int(32));
  PrimExpr a0 = BufferLoad(acc, {I32(0)});
  // acc = sum of even i below 10 = 20, via continue (odd: an integer condition, nonzero is true)
  // and break (i >= 10).
  Stmt loop = For(i, I32(0), I32(100), ForKind::kSerial,
                  SeqStmt({IfThenElse(FloorMod(i, I32(2)), Continue::Make()),
                           IfThenElse(GE(i, I32(10)), Break::Make()),
                           BufferStore(acc, Add(a0, i), {I32(0)})}));
  PrimExpr call = Call(DataType::Int(32), GlobalVar("sq"), {x});
  Stmt body = LetStmt(x, Cast(DataType::Int(32), StructGet(DataType::Int(64), e.args, 0, StructField::kArgInt64)),
                      AllocBuffer(acc, SeqStmt({BufferStore(acc, I32(0), {I32(0)}), loop,
                                                Evaluate(Call(DataType::Int(32), Op("tirx.ret"), {Add(call, a0)}))})));
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("sq"), sq);
  mod.Add(GlobalVar("entry"), e.Make("entry", body));
  auto lib = Build(mod, "helper", GetParam());
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->kernel_names(), std::vector<std::string>{"entry"});
  KilnAny arg{};
  arg.type_index = kKilnInt;
  arg.v_int64 = 7;
  KilnAny result{};
  ASSERT_TRUE(lib->Call("entry", &arg, 1, &result).ok());
  EXPECT_EQ(result.type_index, kKilnInt);
  EXPECT_EQ(result.v_int64, 49 + 20);
}

// A failing assert inside an outlined parallel body reaches the caller, on the pool and serially.
TEST_P(BothPaths, AssertInsideParallelLoop) {
  Entry e;
  FlatArg a("A", 64, DataType::Float(32)), b("B", 64, DataType::Float(32));
  Var i("i", DataType::Int(32));
  Stmt body = SeqStmt({AssertStmt(GE(BufferLoad(a.buf, {i}), F32(0)), "ValueError", {String("negative input")}),
                       BufferStore(b.buf, BufferLoad(a.buf, {i}), {i})});
  Stmt loop = For(i, I32(0), I32(64), ForKind::kParallel, body);
  auto lib = Build(OneKernel("check", e.Make("check", a.Bind(e, 0, b.Bind(e, 1, loop)))), "check", GetParam());
  ASSERT_NE(lib, nullptr);
  std::vector<float> A(64, 1.0f), B(64);
  int64_t shape[1] = {64};
  DLTensor ta = Tensor1D(A.data(), shape, {kDLFloat, 32, 1}), tb = Tensor1D(B.data(), shape, {kDLFloat, 32, 1});
  KilnAny args[2] = {TensorArg(&ta), TensorArg(&tb)};
  runtime::ThreadPool pool(2);
  EXPECT_TRUE(lib->Call("check", args, 2, nullptr, pool.env()).ok());
  EXPECT_EQ(B[63], 1.0f);
  A[50] = -1;
  for (const KilnKernelEnv* env : {pool.env(), static_cast<const KilnKernelEnv*>(nullptr)}) {
    absl::Status st = lib->Call("check", args, 2, nullptr, env);
    EXPECT_EQ(st.message(), "ValueError: negative input");
  }
}

// Two threads compile and run different modules at the same time (each compile has its own
// LLVMContext and TargetMachine).
TEST(CodegenLLVMTest, ConcurrentCompiles) {
  std::vector<std::thread> threads;
  std::vector<int> ok(2, 0);
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([t, &ok] {
      IRModule mod = t == 0 ? AxpyModule(ForKind::kSerial) : VectorModule();
      auto lib = t == 0 ? Build(mod, "concurrent", Path::kSharedLibrary) : Build(mod, "concurrent", Path::kJit);
      if (lib == nullptr) return;
      if (t == 0) {
        CheckAxpy(*lib, nullptr);
        ok[t] = 1;
        return;
      }
      std::vector<float> A(32, 2.0f), B(32);
      int64_t shape[1] = {32};
      DLTensor ta = Tensor1D(A.data(), shape, {kDLFloat, 32, 1}), tb = Tensor1D(B.data(), shape, {kDLFloat, 32, 1});
      KilnAny args[2] = {TensorArg(&ta), TensorArg(&tb)};
      ok[t] = lib->Call("vscale", args, 2, nullptr).ok() && B[31] == 6.0f;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, (std::vector<int>{1, 1}));
}

// MakePackedAPI's compute_scope: the body after the checks runs in "<name>_compute_", which
// reports a failed assert and a tirx.ret value through the entry's result slot and runs parallel
// loops; the entry (the checks) is optnone.
IRModule ComputeScopeModule() {
  Entry e;
  FlatArg a("A", 64, DataType::Float(32)), b("B", 64, DataType::Float(32));
  Var i("i", DataType::Int(32));
  Stmt loop = For(i, I32(0), I32(64), ForKind::kParallel,
                  BufferStore(b.buf, Add(Mul(BufferLoad(a.buf, {i}), F32(2.0)), F32(1.0)), {i}));
  Stmt compute = SeqStmt({AssertStmt(GE(BufferLoad(a.buf, {I32(0)}), F32(0.0)), "ValueError", {String("negative A[0]")}),
                          loop, Evaluate(Call(DataType::Int(32), Op("tirx.ret"), {I32(42)}))});
  Stmt body = SeqStmt({AssertStmt(EQ(e.num_args, I32(2)), "TypeError", {String("Expected 2 arguments")}),
                       a.Bind(e, 0, b.Bind(e, 1, AttrStmt(I32(0), "compute_scope", StringImm("scoped_compute_"), compute)))});
  return OneKernel("scoped", e.Make("scoped", body));
}

TEST_P(BothPaths, ComputeScopeRunsOutlined) {
  auto lib = Build(ComputeScopeModule(), "scoped", GetParam());
  ASSERT_NE(lib, nullptr);
  runtime::ThreadPool pool(2);
  std::vector<float> A(64), B(64, 0);
  for (int i = 0; i < 64; ++i) A[i] = 0.25f * i;
  int64_t shape[1] = {64};
  DLTensor ta = Tensor1D(A.data(), shape, {kDLFloat, 32, 1}), tb = Tensor1D(B.data(), shape, {kDLFloat, 32, 1});
  KilnAny args[2] = {TensorArg(&ta), TensorArg(&tb)};
  for (const KilnKernelEnv* env : {pool.env(), static_cast<const KilnKernelEnv*>(nullptr)}) {
    KilnAny result{};
    ASSERT_TRUE(lib->Call("scoped", args, 2, &result, env).ok());
    EXPECT_EQ(result.type_index, kKilnInt);
    EXPECT_EQ(result.v_int64, 42);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(B[i], A[i] * 2 + 1) << i;
    EXPECT_EQ(lib->Call("scoped", args, 1, &result, env).message(), "TypeError: Expected 2 arguments");
  }
  A[0] = -1;
  KilnAny result{};
  EXPECT_EQ(lib->Call("scoped", args, 2, &result).message(), "ValueError: negative A[0]");
}

TEST(CodegenLLVMTest, ComputeScopeIsItsOwnFunctionAndTheChecksAreOptnone) {
  for (int level = 0; level <= 3; ++level) {
    absl::StatusOr<std::string> ir = EmitLLVMAssembly(ComputeScopeModule(), "llvm -opt-level=" + std::to_string(level));
    ASSERT_TRUE(ir.ok()) << ir.status();
    // (Optimization may add return attributes between the linkage and the name.)
    bool defined = false;
    for (absl::string_view line : absl::StrSplit(*ir, '\n')) {
      defined |= absl::StartsWith(line, "define internal ") && absl::StrContains(line, "@scoped_compute_(");
    }
    EXPECT_TRUE(defined) << level;
    // The entry's attribute group is the first one; it carries optnone.
    size_t entry = ir->find("define i32 @scoped(");
    ASSERT_NE(entry, std::string::npos);
    size_t hash = ir->find('#', ir->find(')', entry));
    std::string group = ir->substr(hash, ir->find(' ', hash) - hash);
    size_t attrs = ir->find("attributes " + group + " = {");
    ASSERT_NE(attrs, std::string::npos) << group;
    EXPECT_NE(ir->substr(attrs, ir->find('\n', attrs) - attrs).find("optnone"), std::string::npos) << level;
  }
}

// Every -opt-level builds a library that computes the same, and the object links with ld.lld as
// well as with the default (the system linker for the host).
TEST(CodegenLLVMTest, EveryOptLevelAndLinker) {
  runtime::ThreadPool pool(2);
  for (int level = 0; level <= 3; ++level) {
    std::string target = "llvm -opt-level=" + std::to_string(level);
    absl::StatusOr<std::string> object = EmitObjectFile(AxpyModule(ForKind::kParallel), target);
    ASSERT_TRUE(object.ok()) << object.status();
    for (const char* linker : {"", "ld.lld-16"}) {
      std::string so = TempLibraryPath(absl::StrCat("levels", level, linker));
      absl::Status st = LinkSharedLibrary(*object, ParseLLVMTarget(target)->triple, so, LinkOptions{linker});
      ASSERT_TRUE(st.ok()) << st << " " << target << " " << linker;
      auto lib = runtime::KernelLibrary::Load(so);
      ASSERT_TRUE(lib.ok()) << lib.status();
      CheckAxpy(**lib, pool.env());
    }
  }
}

TEST(CodegenLLVMTest, BadTargetStringIsAnError) {
  absl::Status st = BuildSharedLibrary(AxpyModule(ForKind::kSerial), "llvm -mcpu=nonsense", TempLibraryPath("bad"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("unknown -mcpu=nonsense"), std::string::npos) << st;
}

}  // namespace
}  // namespace kiln::codegen
