// Builds lowered-form PrimFuncs by hand (the contract of runtime/kernel_abi.h), compiles them with
// the C backend and the system compiler, loads them and calls them through the kernel ABI.
#include "compiler/target/source/c/codegen_c.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <vector>

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

std::unique_ptr<runtime::KernelLibrary> Build(const IRModule& mod, const std::string& stem) {
  absl::StatusOr<std::string> src = GenerateC(mod);
  EXPECT_TRUE(src.ok()) << src.status();
  if (!src.ok()) return nullptr;
  std::string path = TempLibraryPath(stem);
  absl::Status st = CompileCToSharedLibrary(*src, path);
  EXPECT_TRUE(st.ok()) << st << "\n" << *src;
  if (!st.ok()) return nullptr;
  auto lib = runtime::KernelLibrary::Load(path);
  EXPECT_TRUE(lib.ok()) << lib.status();
  return lib.ok() ? std::move(*lib) : nullptr;
}

// B[i] = A[i] * 2 + 1 for i in [0, 16), with an argument-count check; `kind` picks serial/parallel.
IRModule AxpyModule(ForKind kind) {
  Entry e;
  FlatArg a("A", 16, DataType::Float(32)), b("B", 16, DataType::Float(32));
  Var i("i", DataType::Int(32));
  Stmt store = BufferStore(b.buf,
                           Add(Mul(BufferLoad(a.buf, {i}), FloatImm(DataType::Float(32), 2.0)),
                               FloatImm(DataType::Float(32), 1.0)),
                           {i});
  Stmt loop = For(i, I32(0), I32(16), kind, store);
  Stmt body = SeqStmt({AssertStmt(EQ(e.num_args, I32(2)), "TypeError", {String("Expected 2 arguments")}),
                       a.Bind(e, 0, b.Bind(e, 1, loop))});
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("axpy"), e.Make("axpy", body));
  return mod;
}

void CheckAxpy(const runtime::KernelLibrary& lib, const KilnKernelEnv* env) {
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

TEST(CodegenCTest, SerialLoopThroughKernelAbi) {
  auto lib = Build(AxpyModule(ForKind::kSerial), "axpy_serial");
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->kernel_names(), std::vector<std::string>{"axpy"});
  CheckAxpy(*lib, nullptr);
}

TEST(CodegenCTest, ParallelLoopRunsOnPoolAndSerially) {
  auto lib = Build(AxpyModule(ForKind::kParallel), "axpy_parallel");
  ASSERT_NE(lib, nullptr);
  runtime::ThreadPool pool(3);
  CheckAxpy(*lib, pool.env());
  CheckAxpy(*lib, nullptr);
}

// Returns floordiv/floormod/truncdiv results and int8 wrap-around through tirx.ret.
TEST(CodegenCTest, IntegerSemanticsAndReturn) {
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
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("divs"), e.Make("divs", body));
  auto lib = Build(mod, "divs");
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
}

TEST(CodegenCTest, Int8WrapsAndVectorStoresScalarize) {
  Entry e;
  FlatArg a("A", 8, DataType::Int(8)), b("B", 8, DataType::Int(8));
  // B[ramp(0,1,8)] = A[ramp(0,1,8)] * broadcast(100) + broadcast(100): wraps in int8.
  PrimExpr ramp = Ramp(I32(0), I32(1), 8);
  PrimExpr c100 = Broadcast(IntImm(DataType::Int(8), 100), 8);
  Stmt store = BufferStore(b.buf, Add(Mul(BufferLoad(a.buf, {ramp}), c100), c100), {ramp});
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("wrap"), e.Make("wrap", a.Bind(e, 0, b.Bind(e, 1, store))));
  auto lib = Build(mod, "wrap");
  ASSERT_NE(lib, nullptr);
  std::vector<int8_t> A = {0, 1, 2, -1, -2, 3, 127, -128}, B(8, 0);
  int64_t shape[1] = {8};
  DLTensor ta = Tensor1D(A.data(), shape, {kDLInt, 8, 1}), tb = Tensor1D(B.data(), shape, {kDLInt, 8, 1});
  KilnAny args[2] = {TensorArg(&ta), TensorArg(&tb)};
  ASSERT_TRUE(lib->Call("wrap", args, 2, nullptr).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(B[i], static_cast<int8_t>(static_cast<uint8_t>(A[i] * 100 + 100))) << i;
}

// T.fma is one rounding (C's fmaf), not a multiply and an add: with a = 1 + 2^-12, a * a rounds
// to 1 + 2^-11 in float, so a * a - (1 + 2^-11) is 0 unfused and 2^-24 fused.
TEST(CodegenCTest, FmaRoundsOnce) {
  Entry e;
  FlatArg a("A", 4, DataType::Float(32)), b("B", 4, DataType::Float(32));
  Var i("i", DataType::Int(32));
  const float c = -(1.0f + std::ldexp(1.0f, -11));
  PrimExpr x = BufferLoad(a.buf, {i});
  Stmt store = BufferStore(b.buf, Call(DataType::Float(32), Op("tirx.fma"), {x, x, FloatImm(DataType::Float(32), c)}), {i});
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("fused"), e.Make("fused", a.Bind(e, 0, b.Bind(e, 1, For(i, I32(0), I32(4), ForKind::kSerial, store)))));
  auto lib = Build(mod, "fused");
  ASSERT_NE(lib, nullptr);
  std::vector<float> A = {1.0f + std::ldexp(1.0f, -12), 1.0f, 2.0f, -3.5f}, B(4, 0);
  int64_t shape[1] = {4};
  DLTensor ta = Tensor1D(A.data(), shape, {kDLFloat, 32, 1}), tb = Tensor1D(B.data(), shape, {kDLFloat, 32, 1});
  KilnAny args[2] = {TensorArg(&ta), TensorArg(&tb)};
  ASSERT_TRUE(lib->Call("fused", args, 2, nullptr).ok());
  EXPECT_EQ(B[0], std::ldexp(1.0f, -24));
  for (int k = 0; k < 4; ++k) EXPECT_EQ(B[k], std::fma(A[k], A[k], c)) << k;
}

TEST(CodegenCTest, RejectsUnflattenedBuffers) {
  Entry e;
  Buffer b2 = Buffer::Make("C", {I32(4), I32(4)}, DataType::Float(32));
  Stmt store = BufferStore(b2, FloatImm(DataType::Float(32), 0), {I32(0), I32(0)});
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("bad"), e.Make("bad", AllocBuffer(b2, store)));
  absl::StatusOr<std::string> src = GenerateC(mod);
  ASSERT_FALSE(src.ok());
  EXPECT_NE(src.status().message().find("not flattened"), std::string::npos) << src.status();
}

// Symbols C and a bare assembler label cannot spell (TVM's `fused_kernel[`, a leading digit) are
// exported as they are through a quoted asm label, and two symbols that differ only where C
// cannot spell them get distinct C identifiers (issue 14).
TEST(CodegenCTest, SymbolsThatAreNotCIdentifiers) {
  Entry e;
  IRModule mod = IRModule::Make();
  for (const char* symbol : {"0k[", "0k_5B", "0k_"}) {
    mod.Add(GlobalVar(symbol), e.Make(symbol, Evaluate(I32(0))));
  }
  auto lib = Build(mod, "odd_symbols");
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->kernel_names(), (std::vector<std::string>{"0k[", "0k_5B", "0k_"}));
  for (const char* symbol : {"0k[", "0k_5B", "0k_"}) EXPECT_TRUE(lib->Call(symbol, nullptr, 0, nullptr).ok()) << symbol;
}

// C has no 1-bit integer type: the build names the dtype instead of failing in the C compiler
// ("'int1_t' undeclared"), as the LLVM backend does for float8 (issue 14).
TEST(CodegenCTest, RejectsDTypesCCannotDeclare) {
  Entry e;
  Buffer b = Buffer::Make("C", {I32(4)}, DataType::Int(1));
  Stmt store = BufferStore(b, IntImm(DataType::Int(1), 0), {I32(0)});
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("narrow"), e.Make("narrow", AllocBuffer(b, store)));
  absl::StatusOr<std::string> src = GenerateC(mod);
  ASSERT_FALSE(src.ok());
  EXPECT_EQ(src.status().message(), "C codegen (narrow): unsupported dtype int1");
}

}  // namespace
}  // namespace kiln::codegen
