// End-to-end: high-level PrimFuncs built by hand (as the parser would build them) are lowered by
// LowerTIR, compiled by the C backend, loaded and run through the kernel ABI, and compared with
// values computed here. Bad arguments check every MakePackedAPI guard and its message.
#include "compiler/driver/tir_pipeline.h"

#include <cmath>
#include <memory>
#include <vector>

#include "compiler/target/source/c/codegen_c.h"
#include "compiler/target/testing/lowered_ir.h"
#include "compiler/tir/functor.h"
#include "gtest/gtest.h"
#include "runtime/module.h"
#include "runtime/thread_pool.h"

namespace kiln::driver {
namespace {

using namespace ir;  // NOLINT
using codegen::testing::Tensor;
using codegen::testing::TempLibraryPath;

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }
PrimExpr F32(double v) { return FloatImm(DataType::Float(32), v); }
const DataType kF32 = DataType::Float(32);

// A position in a source file "kernel.py", for the errors that must name it.
Span KernelPyAt(int line, int column) {
  Span at;
  at.source = std::make_shared<const std::string>("kernel.py");
  at.line = line;
  at.column = column;
  return at;
}

// Collects params and buffer_map like T.prim_func's signature does.
struct FuncBuilder {
  Array<Var> params;
  Map<Var, Buffer> buffer_map;
  Buffer AddBuffer(const std::string& name, Array<PrimExpr> shape, DataType dtype = kF32,
                   Array<PrimExpr> strides = {}) {
    Var handle(name + "_handle", DataType::Handle());
    Buffer b = Buffer::Make(name, shape, dtype);
    if (!strides.empty()) b.CopyOnWrite()->strides = strides;
    params.push_back(handle);
    buffer_map.Set(handle, b);
    return b;
  }
  Var AddScalar(const std::string& name, DataType t) {
    Var v(name, t);
    params.push_back(v);
    return v;
  }
  PrimFunc Make(const std::string& symbol, Stmt body, bool s_tir = false, Type ret = Type()) const {
    Map<String, ObjectRef> attrs;
    if (!symbol.empty()) attrs.Set(String("global_symbol"), String(symbol));
    if (s_tir) attrs.Set(String("s_tir"), IntImm(DataType::Bool(), 1));
    return PrimFunc(params, body, ret, buffer_map, attrs);
  }
};

IRModule Module(const std::string& name, const PrimFunc& f) {
  IRModule m = IRModule::Make();
  m.Add(GlobalVar(name), f);
  return m;
}

std::unique_ptr<runtime::KernelLibrary> Build(const IRModule& mod, const std::string& stem,
                                              IRModule* lowered_out = nullptr) {
  absl::StatusOr<IRModule> lowered = LowerTIR(mod);
  EXPECT_TRUE(lowered.ok()) << lowered.status();
  if (!lowered.ok()) return nullptr;
  if (lowered_out) *lowered_out = *lowered;
  absl::StatusOr<std::string> src = codegen::GenerateC(*lowered);
  EXPECT_TRUE(src.ok()) << src.status();
  if (!src.ok()) return nullptr;
  std::string path = TempLibraryPath(stem);
  absl::Status st = codegen::CompileCToSharedLibrary(*src, path);
  EXPECT_TRUE(st.ok()) << st << "\n" << *src;
  if (!st.ok()) return nullptr;
  auto lib = runtime::KernelLibrary::Load(path);
  EXPECT_TRUE(lib.ok()) << lib.status();
  return lib.ok() ? std::move(*lib) : nullptr;
}

constexpr DLDataType kDLF32 = {kDLFloat, 32, 1};

KilnAny IntArg(int64_t v) {
  KilnAny a{};
  a.type_index = kKilnInt;
  a.v_int64 = v;
  return a;
}

// for i in range(16): C[i] = A[i] + B[i]
IRModule VectorAdd() {
  FuncBuilder fb;
  Buffer a = fb.AddBuffer("A", {I32(16)}), b = fb.AddBuffer("B", {I32(16)}), c = fb.AddBuffer("C", {I32(16)});
  Var i("i", DataType::Int(32));
  Stmt body = For(i, I32(0), I32(16), ForKind::kSerial,
                  BufferStore(c, Add(BufferLoad(a, {i}), BufferLoad(b, {i})), {i}));
  return Module("add", fb.Make("add", body));
}

// kiln does not lower TIRx tile primitives yet: lowering rejects one at its call, by position.
TEST(TirPipelineTest, TilePrimitiveIsRejectedAtItsCall) {
  FuncBuilder fb;
  Buffer a = fb.AddBuffer("A", {I32(16)});
  Span at = KernelPyAt(7, 5);
  Stmt memset = TilePrimitiveCall("memset", {BufferRegion(a, {Range(I32(0), I32(16))}), F32(1.25)}, {}, {}, "",
                                  TileScope::kThread, at);
  absl::StatusOr<IRModule> lowered = LowerTIR(Module("f", fb.Make("f", memset)), PipelineOptions());
  ASSERT_FALSE(lowered.ok());
  EXPECT_NE(lowered.status().message().find("kernel.py:7:5: error: tile primitive T.tile.memset is not lowered by kiln yet"),
            std::string::npos)
      << lowered.status();
}

// A[T.Ramp(0, 1, T.vscale() * 4)] = T.Broadcast(1.25, T.vscale() * 4), spanned at kernel.py:9:5.
IRModule ScalableStore() {
  FuncBuilder fb;
  Buffer a = fb.AddBuffer("A", {I32(64)});
  Span at = KernelPyAt(9, 5);
  Stmt store = BufferStore(a, Broadcast(F32(1.25), -4), {Ramp(I32(0), I32(1), -4)}, at);
  return Module("f", fb.Make("f", store));
}

// Neither CPU backend compiles scalable vectors: lowering stops before any pass mistakes one for a
// fixed vector, naming the construct, the backend and the source position.
TEST(TirPipelineTest, ScalableVectorIsRejectedByBothCPUTargets) {
  for (const char* kind : {"c", "llvm"}) {
    PipelineOptions options;
    options.target_kind = kind;
    absl::StatusOr<IRModule> lowered = LowerTIR(ScalableStore(), options);
    ASSERT_FALSE(lowered.ok()) << kind;
    EXPECT_EQ(lowered.status().code(), absl::StatusCode::kUnimplemented);
    std::string backend = std::string(kind) == "c" ? "the C backend" : "the LLVM backend";
    EXPECT_NE(lowered.status().message().find(backend + " does not support scalable vectors"), std::string::npos)
        << lowered.status();
    EXPECT_NE(lowered.status().message().find("(float32xvscalex4) in function 'f' at kernel.py:9:5"), std::string::npos)
        << lowered.status();
  }
}

// The C backend checks on its own too, for lowered IR built without LowerTIR.
TEST(TirPipelineTest, CBackendRejectsScalableVectors) {
  absl::StatusOr<std::string> c = codegen::GenerateC(ScalableStore());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(c.status().message().find("the C backend does not support scalable vectors"), std::string::npos)
      << c.status();
}

// An intrinsic kiln parses but cannot compile (T.cuda.ldg on the C backend) is refused when the
// source is generated: UNIMPLEMENTED, naming the intrinsic and where it is written.
TEST(TirPipelineTest, IntrinsicWithoutLoweringIsUnimplementedAtItsCall) {
  FuncBuilder fb;
  Buffer a = fb.AddBuffer("A", {I32(16)});
  Span at = KernelPyAt(6, 12);
  PrimExpr ldg = Call(kF32, Op("tirx.cuda.ldg"), {a->data, StringImm("float32")}, at);
  absl::StatusOr<IRModule> lowered = LowerTIR(Module("f", fb.Make("f", BufferStore(a, ldg, {I32(0)}))));
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  absl::StatusOr<std::string> c = codegen::GenerateC(*lowered);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(c.status().message().find("the C backend does not support T.cuda.ldg at kernel.py:6:12"), std::string::npos)
      << c.status();
}

TEST(TirPipelineTest, VectorAddRuns) {
  auto lib = Build(VectorAdd(), "vadd");
  ASSERT_NE(lib, nullptr);
  std::vector<float> A(16), B(16), C(16, 0);
  for (int i = 0; i < 16; ++i) {
    A[i] = 0.5f * i;
    B[i] = 3.0f - i;
  }
  Tensor ta(A.data(), {16}, kDLF32), tb(B.data(), {16}, kDLF32), tc(C.data(), {16}, kDLF32);
  KilnAny args[3] = {ta.Arg(), tb.Arg(), tc.Arg()};
  ASSERT_TRUE(lib->Call("add", args, 3, nullptr).ok());
  for (int i = 0; i < 16; ++i) EXPECT_EQ(C[i], A[i] + B[i]) << i;
}

// The lowered form: packed signature and attrs, flat accesses, no high-level nodes.
TEST(TirPipelineTest, LoweredFormIsPacked) {
  absl::StatusOr<IRModule> lowered = LowerTIR(VectorAdd());
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  const auto* f = lowered->Lookup("add").as<PrimFuncNode>();
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->params.size(), 4u);
  EXPECT_EQ(f->params[2].dtype(), DataType::Int(32));
  EXPECT_TRUE(f->buffer_map.empty());
  const auto* cc = f->attrs.Get(String("calling_conv")).as<IntImmNode>();
  ASSERT_NE(cc, nullptr);
  EXPECT_EQ(cc->value, 1);
  EXPECT_EQ(f->GetGlobalSymbol(), "add");
  const auto* first = f->body.as<SeqStmtNode>();
  ASSERT_NE(first, nullptr);
  const auto* count = first->seq[0].as<AssertStmtNode>();
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->error_kind, "TypeError");
  EXPECT_EQ(count->message_parts[0].str(), "add: expected 3 arguments (A, B, C)");
}

// 015: with T.sblock("C"): vi, vj, vk = T.axis.remap("SSR", [i, j, k]); init C = 0; C += A * B.
IRModule Matmul(int64_t m, int64_t n, int64_t k) {
  FuncBuilder fb;
  Buffer a = fb.AddBuffer("A", {I32(m), I32(k)}), b = fb.AddBuffer("B", {I32(k), I32(n)});
  Buffer c = fb.AddBuffer("C", {I32(m), I32(n)});
  Var i("i", DataType::Int(32)), j("j", DataType::Int(32)), r("k", DataType::Int(32));
  Var vi("vi", DataType::Int(32)), vj("vj", DataType::Int(32)), vk("vk", DataType::Int(32));
  auto block = make_object<SBlockNode>();
  block->name = "C";
  block->iter_vars = {IterVar(Range(I32(0), I32(m)), vi, IterVarType::kDataPar),
                      IterVar(Range(I32(0), I32(n)), vj, IterVarType::kDataPar),
                      IterVar(Range(I32(0), I32(k)), vk, IterVarType::kCommReduce)};
  block->init = BufferStore(c, F32(0), {vi, vj});
  block->body = BufferStore(c, Add(BufferLoad(c, {vi, vj}), Mul(BufferLoad(a, {vi, vk}), BufferLoad(b, {vk, vj}))),
                            {vi, vj});
  block->reads = {BufferRegion::FullRegion(a), BufferRegion::FullRegion(b)};
  block->writes = {BufferRegion::FullRegion(c)};
  Stmt realize = SBlockRealize({i, j, r}, IntImm(DataType::Bool(), 1), SBlock(ObjectPtr<Object>(std::move(block))));
  Stmt loops = For(i, I32(0), I32(m), ForKind::kSerial,
                   For(j, I32(0), I32(n), ForKind::kSerial, For(r, I32(0), I32(k), ForKind::kSerial, realize)));
  auto root = make_object<SBlockNode>();
  root->name = "root";
  root->body = loops;
  Stmt body = SBlockRealize({}, IntImm(DataType::Bool(), 1), SBlock(ObjectPtr<Object>(std::move(root))));
  return Module("matmul", fb.Make("matmul", body, /*s_tir=*/true));
}

TEST(TirPipelineTest, SBlockMatmulWithInitRuns) {
  const int M = 5, N = 6, K = 7;
  auto lib = Build(Matmul(M, N, K), "matmul");
  ASSERT_NE(lib, nullptr);
  std::vector<float> A(M * K), B(K * N), C(M * N, 99.0f);  // init must overwrite the garbage
  for (int x = 0; x < M * K; ++x) A[x] = static_cast<float>(x % 5) - 2;
  for (int x = 0; x < K * N; ++x) B[x] = static_cast<float>(x % 3) + 0.5f;
  Tensor ta(A.data(), {M, K}, kDLF32), tb(B.data(), {K, N}, kDLF32), tc(C.data(), {M, N}, kDLF32);
  KilnAny args[3] = {ta.Arg(), tb.Arg(), tc.Arg()};
  ASSERT_TRUE(lib->Call("matmul", args, 3, nullptr).ok());
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float acc = 0;
      for (int k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
      EXPECT_FLOAT_EQ(C[i * N + j], acc) << i << "," << j;
    }
  }
}

// The hooks see the module after every step, in pipeline order (Simplify runs twice), and the
// verifier accepts every intermediate form; the dump after LowerSBlocks has no SBlock left.
TEST(TirPipelineTest, HooksSeeEveryPassAndVerifyEachPasses) {
  std::vector<std::string> seen;
  bool sblocks_after_lowering = true;
  PipelineOptions options;
  options.hooks.verify_each = true;
  options.hooks.after_pass = [&](absl::string_view pass, const IRModule& m) {
    seen.emplace_back(pass);
    if (pass != "LowerSBlocks") return;
    const auto* f = m.Lookup("matmul").as<PrimFuncNode>();
    sblocks_after_lowering = f == nullptr || f->body.as<SBlockRealizeNode>() != nullptr;
  };
  absl::StatusOr<IRModule> lowered = LowerTIR(Matmul(2, 3, 4), options);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_EQ(seen, (std::vector<std::string>{"CheckHostOnly", "LowerSBlocks", "GuardAllocSizes", "FlattenBuffer",
                                            "Simplify", "LoopPartition", "VectorizeLoops", "StorageRewrite",
                                            "UnrollLoops", "Simplify", "LowerIntrin", "MakePackedAPI"}));
  EXPECT_FALSE(sblocks_after_lowering);
  std::vector<std::string> unique = seen;
  unique.erase(unique.begin() + 9);  // the second Simplify
  unique.insert(unique.begin() + 2, "InstrumentChecks");  // listed, but it runs in checked mode only
  EXPECT_EQ(TIRPassNames(), unique);
  // Checked mode runs it, right after LowerSBlocks.
  seen.clear();
  options.checked = true;
  ASSERT_TRUE(LowerTIR(Matmul(2, 3, 4), options).ok());
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen[2], "InstrumentChecks");
}

// 009: n = T.int32(); A = T.match_buffer(a, (n,)); B = T.match_buffer(b, (n,)); B[i] = A[i] * 3 - 1.
IRModule Symbolic() {
  FuncBuilder fb;
  Var n("n", DataType::Int(32));
  Buffer a = fb.AddBuffer("A", {n}), b = fb.AddBuffer("B", {n});
  Var i("i", DataType::Int(32));
  Stmt body = For(i, I32(0), n, ForKind::kSerial,
                  BufferStore(b, Sub(Mul(BufferLoad(a, {i}), F32(3)), F32(1)), {i}));
  return Module("main", fb.Make("main", body));
}

TEST(TirPipelineTest, SymbolicShapeBindsAndChecks) {
  auto lib = Build(Symbolic(), "symbolic");
  ASSERT_NE(lib, nullptr);
  std::vector<float> A(37), B(37, 0);
  for (int i = 0; i < 37; ++i) A[i] = 0.25f * i - 4;
  Tensor ta(A.data(), {37}, kDLF32), tb(B.data(), {37}, kDLF32);
  KilnAny args[2] = {ta.Arg(), tb.Arg()};
  ASSERT_TRUE(lib->Call("main", args, 2, nullptr).ok());
  for (int i = 0; i < 37; ++i) EXPECT_EQ(B[i], A[i] * 3.0f - 1.0f) << i;
  // n is bound by A.shape[0]; B must agree.
  Tensor tb_short(B.data(), {36}, kDLF32);
  KilnAny bad[2] = {ta.Arg(), tb_short.Arg()};
  absl::Status st = lib->Call("main", bad, 2, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "ValueError: main: argument B.shape[0] has an unsatisfied constraint: n == B.shape[0]");
}

// 010: A: T.Buffer((4, 4), strides=(8, 1)); B[i, j] = A[i, j] + 1.
TEST(TirPipelineTest, StridedParamRuns) {
  FuncBuilder fb;
  Buffer a = fb.AddBuffer("A", {I32(4), I32(4)}, kF32, {I32(8), I32(1)});
  Buffer b = fb.AddBuffer("B", {I32(4), I32(4)});
  Var i("i", DataType::Int(32)), j("j", DataType::Int(32));
  Stmt body = For(i, I32(0), I32(4), ForKind::kSerial,
                  For(j, I32(0), I32(4), ForKind::kSerial,
                      BufferStore(b, Add(BufferLoad(a, {i, j}), F32(1)), {i, j})));
  auto lib = Build(Module("strided", fb.Make("strided", body)), "strided");
  ASSERT_NE(lib, nullptr);
  std::vector<float> big(32), B(16, 0);
  for (int x = 0; x < 32; ++x) big[x] = static_cast<float>(x);
  Tensor ta(big.data(), {4, 4}, kDLF32, {8, 1}), tb(B.data(), {4, 4}, kDLF32);
  KilnAny args[2] = {ta.Arg(), tb.Arg()};
  ASSERT_TRUE(lib->Call("strided", args, 2, nullptr).ok());
  for (int x = 0; x < 4; ++x) {
    for (int y = 0; y < 4; ++y) EXPECT_EQ(B[x * 4 + y], big[x * 8 + y] + 1) << x << "," << y;
  }
  // A compact tensor does not satisfy the declared stride 8.
  Tensor compact(big.data(), {4, 4}, kDLF32);
  KilnAny bad[2] = {compact.Arg(), tb.Arg()};
  absl::Status st = lib->Call("strided", bad, 2, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "ValueError: strided: argument A.strides[0] has an unsatisfied constraint: 8 == A.strides[0]");
}

// 012: for i in T.parallel(64): B[i] = max(A[i], 0), on the pool and serially.
TEST(TirPipelineTest, ParallelLoopRuns) {
  FuncBuilder fb;
  Buffer a = fb.AddBuffer("A", {I32(64)}), b = fb.AddBuffer("B", {I32(64)});
  Var i("i", DataType::Int(32));
  Stmt body = For(i, I32(0), I32(64), ForKind::kParallel, BufferStore(b, Max(BufferLoad(a, {i}), F32(0)), {i}));
  auto lib = Build(Module("relu", fb.Make("relu", body)), "relu");
  ASSERT_NE(lib, nullptr);
  runtime::ThreadPool pool(3);
  for (const KilnKernelEnv* env : {pool.env(), static_cast<const KilnKernelEnv*>(nullptr)}) {
    std::vector<float> A(64), B(64, -1);
    for (int x = 0; x < 64; ++x) A[x] = static_cast<float>(x % 7) - 3;
    Tensor ta(A.data(), {64}, kDLF32), tb(B.data(), {64}, kDLF32);
    KilnAny args[2] = {ta.Arg(), tb.Arg()};
    ASSERT_TRUE(lib->Call("relu", args, 2, nullptr, env).ok());
    for (int x = 0; x < 64; ++x) EXPECT_EQ(B[x], std::max(A[x], 0.0f)) << x;
  }
}

// Whether a statement tree contains a node of kind K.
template <typename K>
bool Contains(const Stmt& s) {
  struct Finder : StmtExprVisitor {
    bool found = false;
    void VisitExpr(const PrimExpr& e) override {
      if (e.as<K>()) found = true;
      StmtExprVisitor::VisitExpr(e);
    }
    void VisitStmt(const Stmt& st) override {
      if (st.as<K>()) found = true;
      StmtExprVisitor::VisitStmt(st);
    }
  } f;
  f.VisitStmt(s);
  return f.found;
}

// 013: for i, j in T.grid(32, T.vectorized(8)): B[i, j] = A[i, j] * 2 + 0.25.
TEST(TirPipelineTest, VectorizedLoopBecomesRampsAndRuns) {
  FuncBuilder fb;
  Buffer a = fb.AddBuffer("A", {I32(32), I32(8)}), b = fb.AddBuffer("B", {I32(32), I32(8)});
  Var i("i", DataType::Int(32)), j("j", DataType::Int(32));
  Stmt body = For(i, I32(0), I32(32), ForKind::kSerial,
                  For(j, I32(0), I32(8), ForKind::kVectorized,
                      BufferStore(b, Add(Mul(BufferLoad(a, {i, j}), F32(2)), F32(0.25)), {i, j})));
  IRModule lowered;
  auto lib = Build(Module("scale", fb.Make("scale", body)), "scale", &lowered);
  ASSERT_NE(lib, nullptr);
  Stmt lowered_body = lowered.Lookup("scale").as<PrimFuncNode>()->body;
  EXPECT_TRUE(Contains<RampNode>(lowered_body));
  std::vector<float> A(256), B(256, 0);
  for (int x = 0; x < 256; ++x) A[x] = 0.125f * x;
  Tensor ta(A.data(), {32, 8}, kDLF32), tb(B.data(), {32, 8}, kDLF32);
  KilnAny args[2] = {ta.Arg(), tb.Arg()};
  ASSERT_TRUE(lib->Call("scale", args, 2, nullptr).ok());
  for (int x = 0; x < 256; ++x) EXPECT_EQ(B[x], A[x] * 2 + 0.25f) << x;
}

// 014: C[i] = 0; for k in T.unroll(4): C[i] += A[i, k] * B[k].
TEST(TirPipelineTest, UnrolledDotRuns) {
  FuncBuilder fb;
  Buffer a = fb.AddBuffer("A", {I32(16), I32(4)}), b = fb.AddBuffer("B", {I32(4)}), c = fb.AddBuffer("C", {I32(16)});
  Var i("i", DataType::Int(32)), k("k", DataType::Int(32));
  Stmt body = For(i, I32(0), I32(16), ForKind::kSerial,
                  SeqStmt({BufferStore(c, F32(0), {i}),
                           For(k, I32(0), I32(4), ForKind::kUnrolled,
                               BufferStore(c, Add(BufferLoad(c, {i}), Mul(BufferLoad(a, {i, k}), BufferLoad(b, {k}))),
                                           {i}))}));
  IRModule lowered;
  auto lib = Build(Module("dot", fb.Make("dot", body)), "dot", &lowered);
  ASSERT_NE(lib, nullptr);
  std::vector<float> A(64), B(4), C(16, 0);
  for (int x = 0; x < 64; ++x) A[x] = static_cast<float>(x % 9) - 4;
  for (int x = 0; x < 4; ++x) B[x] = 1.5f * x;
  Tensor ta(A.data(), {16, 4}, kDLF32), tb(B.data(), {4}, kDLF32), tc(C.data(), {16}, kDLF32);
  KilnAny args[3] = {ta.Arg(), tb.Arg(), tc.Arg()};
  ASSERT_TRUE(lib->Call("dot", args, 3, nullptr).ok());
  for (int x = 0; x < 16; ++x) {
    float acc = 0;
    for (int y = 0; y < 4; ++y) acc += A[x * 4 + y] * B[y];
    EXPECT_EQ(C[x], acc) << x;
  }
}

// 040: def f(a: int32, b: int32) -> int32: if a > b: return a * 3 - b; return max(a, b) + min(a, 0).
TEST(TirPipelineTest, ScalarReturnRuns) {
  FuncBuilder fb;
  Var a = fb.AddScalar("a", DataType::Int(32)), b = fb.AddScalar("b", DataType::Int(32));
  auto ret = [](PrimExpr v) { return Evaluate(Call(DataType::Int(32), Op("tirx.ret"), {v})); };
  Stmt body = SeqStmt({IfThenElse(GT(a, b), ret(Sub(Mul(a, I32(3)), b))), ret(Add(Max(a, b), Min(a, I32(0))))});
  auto lib = Build(Module("f", fb.Make("f", body, false, PrimType(DataType::Int(32)))), "ret");
  ASSERT_NE(lib, nullptr);
  auto run = [&](int64_t x, int64_t y) {
    KilnAny args[2] = {IntArg(x), IntArg(y)};
    KilnAny result{};
    EXPECT_TRUE(lib->Call("f", args, 2, &result).ok());
    EXPECT_EQ(result.type_index, kKilnInt);
    return result.v_int64;
  };
  EXPECT_EQ(run(17, 5), 46);
  EXPECT_EQ(run(-4, 5), 1);
  // A float where an int is expected.
  KilnAny args[2] = {IntArg(1), IntArg(2)};
  args[1].type_index = kKilnFloat;
  absl::Status st = lib->Call("f", args, 2, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "TypeError: f: argument b (#1) must be an integer (int32)");
}

// 020-style local scalar (rank-0 buffer) and 034-style decl_buffer view of a 2-D param.
TEST(TirPipelineTest, LocalScalarAndDeclBufferView) {
  FuncBuilder fb;
  Buffer a = fb.AddBuffer("A", {I32(8), I32(8)}, DataType::Int(32));
  Buffer out = fb.AddBuffer("S", {I32(1)}, DataType::Int(32));
  auto flat = make_object<BufferNode>();
  flat->data = a->data;
  flat->dtype = DataType::Int(32);
  flat->shape = {I32(64)};
  flat->name = "A_flat";
  Buffer view(ObjectPtr<Object>(std::move(flat)));
  Buffer acc = Buffer::Make("acc", {}, DataType::Int(32), "local");
  Var k("k", DataType::Int(32));
  Stmt loop = For(k, I32(0), I32(64), ForKind::kSerial,
                  BufferStore(acc, Add(BufferLoad(acc, {}), Mul(BufferLoad(view, {Sub(I32(63), k)}), k)), {}));
  Stmt body = DeclBuffer(view, AllocBuffer(acc, SeqStmt({BufferStore(acc, I32(0), {}), loop,
                                                          BufferStore(out, BufferLoad(acc, {}), {I32(0)})}),
                                           {{String("tirx.local_scalar"), IntImm(DataType::Bool(), 1)}}));
  IRModule lowered;
  auto lib = Build(Module("view", fb.Make("view", body)), "view", &lowered);
  ASSERT_NE(lib, nullptr);
  EXPECT_FALSE(Contains<DeclBufferNode>(lowered.Lookup("view").as<PrimFuncNode>()->body));
  std::vector<int32_t> A(64), S(1, 0);
  for (int x = 0; x < 64; ++x) A[x] = x * 3 - 50;
  Tensor ta(A.data(), {8, 8}, {kDLInt, 32, 1}), ts(S.data(), {1}, {kDLInt, 32, 1});
  KilnAny args[2] = {ta.Arg(), ts.Arg()};
  ASSERT_TRUE(lib->Call("view", args, 2, nullptr).ok());
  int32_t expect = 0;
  for (int x = 0; x < 64; ++x) expect += A[63 - x] * x;
  EXPECT_EQ(S[0], expect);
}

// 041: a private scalar helper called from the exported function.
TEST(TirPipelineTest, PrivateHelperCall) {
  FuncBuilder helper;
  Var x = helper.AddScalar("x", kF32);
  Stmt hbody = Evaluate(Call(kF32, Op("tirx.ret"), {Mul(x, x)}));
  PrimFunc sq = helper.Make("", hbody, false, PrimType(kF32));
  FuncBuilder fb;
  Buffer a = fb.AddBuffer("A", {I32(8)}), b = fb.AddBuffer("B", {I32(8)});
  Var i("i", DataType::Int(32));
  Stmt body = For(i, I32(0), I32(8), ForKind::kSerial,
                  BufferStore(b, Call(kF32, GlobalVar("square"), {BufferLoad(a, {i})}), {i}));
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("square"), sq);
  mod.Add(GlobalVar("main"), fb.Make("main", body));
  auto lib = Build(mod, "helper");
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->kernel_names(), std::vector<std::string>{"main"});
  std::vector<float> A(8), B(8, 0);
  for (int k = 0; k < 8; ++k) A[k] = 0.5f * k - 1;
  Tensor ta(A.data(), {8}, kDLF32), tb(B.data(), {8}, kDLF32);
  KilnAny args[2] = {ta.Arg(), tb.Arg()};
  ASSERT_TRUE(lib->Call("main", args, 2, nullptr).ok());
  for (int k = 0; k < 8; ++k) EXPECT_EQ(B[k], A[k] * A[k]) << k;
}

TEST(TirPipelineTest, GpuKernelRejectedForCpuTarget) {
  FuncBuilder fb;
  Buffer a = fb.AddBuffer("A", {I32(64)});
  Var tx("tx", DataType::Int(32));
  IterVar iv(Range(I32(0), I32(64)), Var("threadIdx.x", DataType::Int(32)), IterVarType::kThreadIndex, "threadIdx.x");
  Stmt body = For(tx, I32(0), I32(64), ForKind::kThreadBinding, BufferStore(a, F32(1), {tx}), iv);
  absl::StatusOr<IRModule> r = LowerTIR(Module("k", fb.Make("k", body)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "k: loop tx is bound to GPU thread threadIdx.x; target 'c' runs on the CPU and cannot execute GPU "
            "kernels (compile it for a GPU target such as cuda)");
}

// ---- every MakePackedAPI guard with a bad argument ----

class BadArgumentTest : public ::testing::Test {
 protected:
  // One library for all the cases: compiling is the slow part.
  static void SetUpTestSuite() { lib_ = Build(VectorAdd(), "vadd_bad").release(); }
  static void TearDownTestSuite() {
    delete lib_;
    lib_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(lib_, nullptr);
    for (int x = 0; x < 16; ++x) A_[x] = static_cast<float>(x);
  }
  // Calls add(A, B, C) after letting `edit` spoil the arguments; returns the error message.
  template <typename F>
  std::string Fail(F edit, int num_args = 3) {
    Tensor ta(A_.data(), {16}, kDLF32), tb(B_.data(), {16}, kDLF32), tc(C_.data(), {16}, kDLF32);
    KilnAny args[3] = {ta.Arg(), tb.Arg(), tc.Arg()};
    edit(args, &ta);
    absl::Status st = lib_->Call("add", args, num_args, nullptr);
    EXPECT_FALSE(st.ok());
    return std::string(st.message());
  }
  static runtime::KernelLibrary* lib_;
  std::vector<float> A_ = std::vector<float>(17), B_ = std::vector<float>(16), C_ = std::vector<float>(16);
};

runtime::KernelLibrary* BadArgumentTest::lib_ = nullptr;

TEST_F(BadArgumentTest, WrongArgumentCount) {
  EXPECT_EQ(Fail([](KilnAny*, Tensor*) {}, 2), "TypeError: add: expected 3 arguments (A, B, C)");
}
TEST_F(BadArgumentTest, WrongTypeIndex) {
  EXPECT_EQ(Fail([](KilnAny* args, Tensor*) { args[1] = IntArg(3); }),
            "TypeError: add: argument B (#1) must be a tensor (DLTensor*)");
}
TEST_F(BadArgumentTest, NullTensor) {
  EXPECT_EQ(Fail([](KilnAny* args, Tensor*) { args[0].v_ptr = nullptr; }),
            "TypeError: add: argument A is NULL, expected a tensor");
}
TEST_F(BadArgumentTest, WrongNDim) {
  EXPECT_EQ(Fail([](KilnAny*, Tensor* t) {
              t->shape = {4, 4};
              t->t.shape = t->shape.data();
              t->t.ndim = 2;
            }),
            "ValueError: add: argument A.ndim has an unsatisfied constraint: 1 == A.ndim");
}
TEST_F(BadArgumentTest, WrongDType) {
  EXPECT_EQ(Fail([](KilnAny*, Tensor* t) { t->t.dtype = {kDLFloat, 64, 1}; }),
            "TypeError: add: argument A.dtype has an unsatisfied constraint: A.dtype == float32");
}
TEST_F(BadArgumentTest, WrongShape) {
  EXPECT_EQ(Fail([](KilnAny*, Tensor* t) { t->shape[0] = 15; }),
            "ValueError: add: argument A.shape[0] has an unsatisfied constraint: 16 == A.shape[0]");
}
TEST_F(BadArgumentTest, NonCompactStrides) {
  EXPECT_EQ(Fail([](KilnAny*, Tensor* t) {
              t->strides = {2};
              t->t.strides = t->strides.data();
            }),
            "ValueError: add: argument A.strides has an unsatisfied constraint: A must be compact (row-major "
            "contiguous)");
}
TEST_F(BadArgumentTest, CompactExplicitStridesAccepted) {
  Tensor ta(A_.data(), {16}, kDLF32, {1}), tb(B_.data(), {16}, kDLF32), tc(C_.data(), {16}, kDLF32);
  KilnAny args[3] = {ta.Arg(), tb.Arg(), tc.Arg()};
  EXPECT_TRUE(lib_->Call("add", args, 3, nullptr).ok());
}
TEST_F(BadArgumentTest, ByteOffset) {
  EXPECT_EQ(Fail([](KilnAny*, Tensor* t) { t->t.byte_offset = 4; }),
            "ValueError: add: argument A.byte_offset has an unsatisfied constraint: 0 == A.byte_offset");
}
TEST_F(BadArgumentTest, NullData) {
  EXPECT_EQ(Fail([](KilnAny*, Tensor* t) { t->t.data = nullptr; }), "ValueError: add: argument A.data is NULL");
}
TEST_F(BadArgumentTest, Misaligned) {
  EXPECT_EQ(Fail([this](KilnAny*, Tensor* t) { t->t.data = reinterpret_cast<char*>(A_.data()) + 2; }),
            "ValueError: add: argument A.data is misaligned: expected an address that is a multiple of 4 bytes");
}
TEST_F(BadArgumentTest, WrongDevice) {
  EXPECT_EQ(Fail([](KilnAny*, Tensor* t) { t->t.device = {kDLCUDA, 0}; }),
            "ValueError: add: argument A.device_type has an unsatisfied constraint: 1 (cpu) == A.device_type");
}

}  // namespace
}  // namespace kiln::driver
