#include "compiler/tir/analysis/verifier.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace kiln::tir {
namespace {

using namespace ::kiln::ir;  // NOLINT

Span S(int line, int col) {
  Span s;
  s.line = line;
  s.column = col;
  return s;
}

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }
PrimExpr F32(double v) { return FloatImm(DataType::Float(32), v); }
PrimExpr True() { return IntImm(DataType::Bool(), 1); }

// A function whose parameters are the given buffers (each behind a handle param).
PrimFunc Func(const std::vector<Buffer>& buffers, Stmt body, std::vector<Var> scalars = {},
              Type ret_type = Type()) {
  Array<Var> params;
  Map<Var, Buffer> buffer_map;
  for (const Buffer& b : buffers) {
    Var h(b->name + "_handle", DataType::Handle());
    params.push_back(h);
    buffer_map.Set(h, b);
  }
  for (const Var& v : scalars) params.push_back(v);
  return PrimFunc(params, body, ret_type, buffer_map, {}, S(1, 1));
}

SBlock MakeBlock(std::string name, Array<IterVar> iter_vars, Array<BufferRegion> reads,
                 Array<BufferRegion> writes, Stmt body, Stmt init = Stmt(), Span span = {}) {
  auto n = make_object<SBlockNode>();
  n->name = std::move(name);
  n->iter_vars = std::move(iter_vars);
  n->reads = std::move(reads);
  n->writes = std::move(writes);
  n->body = std::move(body);
  n->init = std::move(init);
  n->span = std::move(span);
  return SBlock(ObjectPtr<Object>(std::move(n)));
}

BufferRegion Region(const Buffer& b, const std::vector<PrimExpr>& mins) {
  Array<Range> region;
  for (const PrimExpr& m : mins) region.push_back(Range(m, I32(1)));
  return BufferRegion(b, region);
}

struct Result {
  absl::Status status;
  DiagnosticList diags;
  bool Has(const std::string& needle) const {
    for (const Diagnostic& d : diags.items()) {
      if (d.message.find(needle) != std::string::npos) return true;
    }
    return false;
  }
  // The span of the first diagnostic that contains needle.
  Span SpanOf(const std::string& needle) const {
    for (const Diagnostic& d : diags.items()) {
      if (d.message.find(needle) != std::string::npos) return d.span;
    }
    return Span();
  }
  std::string All() const { return RenderAll(diags, ""); }
};

Result Verify(const PrimFunc& f, const IRModule& mod = IRModule()) {
  Result r;
  r.status = VerifyPrimFunc(f, &r.diags, mod);
  return r;
}

void ExpectOk(const PrimFunc& f, const IRModule& mod = IRModule()) {
  Result r = Verify(f, mod);
  EXPECT_TRUE(r.status.ok()) << r.All();
  EXPECT_TRUE(r.diags.items().empty()) << r.All();
}

// Expects failure with an error containing `needle`, located at `span` if given.
void ExpectError(const PrimFunc& f, const std::string& needle, Span span = {}) {
  Result r = Verify(f);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(r.Has(needle)) << "wanted \"" << needle << "\", got:\n" << r.All();
  if (span.defined()) {
    Span got = r.SpanOf(needle);
    EXPECT_EQ(got.line, span.line) << r.All();
    EXPECT_EQ(got.column, span.column) << r.All();
  }
}

// ---------------- well-typed programs ----------------

TEST(VerifierTest, SBlockMatmulPasses) {
  Buffer A = Buffer::Make("A", {I32(16), I32(16)}, DataType::Float(32));
  Buffer B = Buffer::Make("B", {I32(16), I32(16)}, DataType::Float(32));
  Buffer C = Buffer::Make("C", {I32(16), I32(16)}, DataType::Float(32));
  Var i("i", DataType::Int(32)), j("j", DataType::Int(32)), k("k", DataType::Int(32));
  Var vi("vi", DataType::Int(32)), vj("vj", DataType::Int(32)), vk("vk", DataType::Int(32));
  Array<IterVar> ivs = {IterVar(Range(I32(0), I32(16)), vi, IterVarType::kDataPar),
                        IterVar(Range(I32(0), I32(16)), vj, IterVarType::kDataPar),
                        IterVar(Range(I32(0), I32(16)), vk, IterVarType::kCommReduce)};
  Stmt init = BufferStore(C, F32(0), {vi, vj});
  Stmt body = BufferStore(C, Add(BufferLoad(C, {vi, vj}), Mul(BufferLoad(A, {vi, vk}), BufferLoad(B, {vk, vj}))),
                          {vi, vj});
  SBlock block = MakeBlock("C", ivs, {Region(A, {vi, vk}), Region(B, {vk, vj})}, {Region(C, {vi, vj})}, body, init);
  Stmt realize = SBlockRealize({i, j, k}, True(), block);
  Stmt loops = For(i, I32(0), I32(16), ForKind::kSerial,
                   For(j, I32(0), I32(16), ForKind::kSerial, For(k, I32(0), I32(16), ForKind::kSerial, realize)));
  SBlock root = MakeBlock("root", {}, {}, {}, loops);
  ExpectOk(Func({A, B, C}, SBlockRealize({}, True(), root)));
}

TEST(VerifierTest, ThreadBindingsPass) {
  Buffer A = Buffer::Make("A", {I32(1024)}, DataType::Float(32));
  Buffer B = Buffer::Make("B", {I32(1024)}, DataType::Float(32));
  Var bx("bx", DataType::Int(32)), tx("tx", DataType::Int(32));
  PrimExpr idx = Add(Mul(bx, I32(128)), tx);
  Stmt store = BufferStore(B, Mul(BufferLoad(A, {idx}), F32(2)), {idx});
  Stmt loops = For(bx, I32(0), I32(8), ForKind::kThreadBinding,
                   For(tx, I32(0), I32(128), ForKind::kThreadBinding, store,
                       IterVar(Range(I32(0), I32(128)), Var("threadIdx.x", DataType::Int(32)),
                               IterVarType::kThreadIndex, "threadIdx.x")),
                   IterVar(Range(I32(0), I32(8)), Var("blockIdx.x", DataType::Int(32)), IterVarType::kThreadIndex,
                           "blockIdx.x"));
  ExpectOk(Func({A, B}, loops));

  // The T.launch_thread form: AttrStmt("thread_extent") binding an IterVar's var.
  Var bx2("blockIdx.x", DataType::Int(32)), tx2("threadIdx.x", DataType::Int(32));
  PrimExpr idx2 = Add(Mul(bx2, I32(128)), tx2);
  Stmt launch = AttrStmt(IterVar(Range(), bx2, IterVarType::kThreadIndex, "blockIdx.x"), "thread_extent", I32(8),
                         AttrStmt(IterVar(Range(), tx2, IterVarType::kThreadIndex, "threadIdx.x"), "thread_extent",
                                  I32(128), BufferStore(B, BufferLoad(A, {idx2}), {idx2})));
  ExpectOk(Func({A, B}, launch));
}

TEST(VerifierTest, LetAssertWhilePass) {
  Buffer A = Buffer::Make("A", {I32(1)}, DataType::Int(32));
  Var n("n", DataType::Int(32)), m("m", DataType::Int(32)), x("x", DataType::Int(32));
  Stmt loop = While(LT(BufferLoad(A, {I32(0)}), n),
                    SeqStmt({BufferStore(A, Add(BufferLoad(A, {I32(0)}), I32(1)), {I32(0)}),
                             IfThenElse(GT(BufferLoad(A, {I32(0)}), I32(100)), Break::Make())}));
  Stmt body = LetStmt(m, Let(x, n, Mul(x, I32(2))),
                      AssertStmt(GT(m, I32(0)), "ValueError", {String("m must be positive")}, loop));
  ExpectOk(Func({A}, body, {n}));
}

TEST(VerifierTest, VectorRampsPass) {
  Buffer A = Buffer::Make("A", {I32(32)}, DataType::Int(32));
  Buffer B = Buffer::Make("B", {I32(32)}, DataType::Int(32));
  Var i("i", DataType::Int(32));
  PrimExpr ramp = Ramp(Mul(i, I32(4)), I32(1), 4);
  PrimExpr value = Add(Shuffle({BufferLoad(A, {ramp})}, {I32(3), I32(2), I32(1), I32(0)}), Broadcast(I32(1), 4));
  ExpectOk(Func({A, B}, For(i, I32(0), I32(8), ForKind::kSerial, BufferStore(B, value, {ramp}))));
}

TEST(VerifierTest, SymbolicShapesAndReturnPass) {
  Var n("n", DataType::Int(64));
  Buffer A = Buffer::Make("A", {n}, DataType::Float(32));
  Buffer B = Buffer::Make("B", {n}, DataType::Float(32));
  Var i("i", DataType::Int(64));
  ExpectOk(Func({A, B}, For(i, IntImm(DataType::Int(64), 0), n, ForKind::kSerial,
                            BufferStore(B, BufferLoad(A, {i}), {i}))));

  Var a("a", DataType::Int(32));
  Stmt ret = Evaluate(Call(DataType::Int(32), Op("tirx.ret"), {Mul(a, I32(3))}));
  ExpectOk(Func({}, ret, {a}, PrimType(DataType::Int(32))));
}

TEST(VerifierTest, AllocAndDeclBufferPass) {
  Buffer A = Buffer::Make("A", {I32(4), I32(4)}, DataType::Float(32));
  Buffer T = Buffer::Make("T", {I32(16)}, DataType::Float(32), "local");
  Buffer flat = Buffer::Make("A_flat", {I32(16)}, DataType::Float(32));
  flat.CopyOnWrite()->data = A->data;
  Var i("i", DataType::Int(32));
  Stmt body = AllocBuffer(T, DeclBuffer(flat, For(i, I32(0), I32(16), ForKind::kSerial,
                                                  BufferStore(T, BufferLoad(flat, {i}), {i}))));
  ExpectOk(Func({A}, body));
}

TEST(VerifierTest, MatchBufferBindsFreshShapeVars) {
  Buffer A = Buffer::Make("A", {I32(16), I32(16)}, DataType::Float(32));
  Var m("m", DataType::Int(32));
  Buffer sub = Buffer::Make("sub", {m}, DataType::Float(32));
  Var vi("vi", DataType::Int(32)), i("i", DataType::Int(32)), k("k", DataType::Int(32));
  auto n = make_object<SBlockNode>();
  n->name = "tile";
  n->iter_vars = {IterVar(Range(I32(0), I32(16)), vi, IterVarType::kDataPar)};
  n->match_buffers = {MatchBufferRegion(sub, BufferRegion(A, {Range(vi, I32(1)), Range(I32(0), I32(16))}))};
  n->body = For(k, I32(0), m, ForKind::kSerial, BufferStore(sub, F32(0), {k}));
  SBlock block(ObjectPtr<Object>(std::move(n)));
  ExpectOk(Func({A}, For(i, I32(0), I32(16), ForKind::kSerial, SBlockRealize({i}, True(), block))));

  // The match buffer's dtype must be its source's.
  Buffer wrong = Buffer::Make("wrong", {I32(16)}, DataType::Int(32));
  auto n2 = make_object<SBlockNode>();
  n2->name = "tile";
  n2->match_buffers = {MatchBufferRegion(wrong, BufferRegion::FullRegion(A))};
  n2->body = Evaluate(I32(0));
  n2->span = S(6, 1);
  ExpectError(Func({A}, SBlockRealize({}, True(), SBlock(ObjectPtr<Object>(std::move(n2))))),
              "mismatched types: match_buffer wrong is int32 but its source A is float32", S(6, 1));
}

TEST(VerifierTest, ModuleCallsPass) {
  Var a("a", DataType::Int(32));
  PrimFunc callee = Func({}, Evaluate(Call(DataType::Int(32), Op("tirx.ret"), {a})), {a}, PrimType(DataType::Int(32)));
  Var b("b", DataType::Int(32));
  PrimFunc caller = Func({}, Evaluate(Call(DataType::Int(32), Op("tirx.ret"),
                                           {Call(DataType::Int(32), GlobalVar("callee"), {b})})),
                         {b}, PrimType(DataType::Int(32)));
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("callee"), callee);
  mod.Add(GlobalVar("main"), caller);
  DiagnosticList diags;
  EXPECT_TRUE(VerifyModuleTIR(mod, &diags).ok()) << RenderAll(diags, "");
}

// ---------------- ill-typed programs: one class per test ----------------

TEST(VerifierTest, BinaryOperandMismatch) {
  Buffer A = Buffer::Make("A", {I32(8)}, DataType::Float(32));
  Buffer I = Buffer::Make("I", {I32(8)}, DataType::Int(32));
  Var i("i", DataType::Int(32));
  PrimExpr bad = Add(BufferLoad(A, {i}), BufferLoad(I, {i}), S(8, 16));
  ExpectError(Func({A, I}, For(i, I32(0), I32(8), ForKind::kSerial, BufferStore(A, bad, {i}))),
              "mismatched types: float32 vs int32 in Add", S(8, 16));
  // Lanes count too.
  Var v("v", DataType::Float(32, 4)), s("s", DataType::Float(32));
  ExpectError(Func({}, Evaluate(Mul(v, s, S(2, 3))), {v, s}), "mismatched types: float32x4 vs float32", S(2, 3));
}

TEST(VerifierTest, ComparisonAndLogicalTypes) {
  Var x("x", DataType::Int(32)), y("y", DataType::Int(64)), c("c", DataType::Bool());
  ExpectError(Func({}, Evaluate(LT(x, y, S(3, 1))), {x, y}), "mismatched types: int32 vs int64 in LT", S(3, 1));
  ExpectError(Func({}, Evaluate(And(c, x, S(4, 2))), {c, x}), "And expects bool operands, got bool and int32",
              S(4, 2));
  ExpectError(Func({}, Evaluate(Not(x, S(5, 2))), {x}), "Not expects a bool operand, got int32", S(5, 2));
}

TEST(VerifierTest, SelectAndIfThenElse) {
  Var c("c", DataType::Bool()), f("f", DataType::Float(32)), i("i", DataType::Int(32));
  ExpectError(Func({}, Evaluate(Select(c, f, i, S(8, 16))), {c, f, i}), "mismatched types: float32 vs int32 in Select",
              S(8, 16));
  ExpectError(Func({}, Evaluate(Select(i, f, f, S(2, 2))), {i, f}), "Select condition must be bool, got int32");
  ExpectError(Func({}, Evaluate(Call(DataType::Float(32), Op("tirx.if_then_else"), {i, f, f}, S(3, 3))), {i, f}),
              "T.if_then_else condition must be bool, got int32", S(3, 3));
  ExpectError(Func({}, Evaluate(Call(DataType::Float(32), Op("tirx.if_then_else"), {c, f, i}, S(4, 4))), {c, f, i}),
              "mismatched types: float32 vs int32 in T.if_then_else", S(4, 4));
}

TEST(VerifierTest, CastMustPreserveLanes) {
  Var v("v", DataType::Float(32, 4));
  ExpectError(Func({}, Evaluate(Cast(DataType::Int(32), v, S(6, 7))), {v}),
              "Cast from float32x4 to int32 changes the number of lanes", S(6, 7));
}

// A pointer's address (MakePackedAPI's alignment check) is allowed only in the lowered form.
TEST(VerifierTest, PointerAddressOnlyInLoweredForm) {
  Var p("p", DataType::Handle());
  PrimFunc f = Func({}, Evaluate(Cast(DataType::Int(64), p, S(2, 3))), {p});
  ExpectError(f, "Cast from handle to int64 is not allowed", S(2, 3));
  VerifyOptions lowered;
  lowered.lowered_form = true;
  EXPECT_TRUE(VerifyPrimFunc(f, nullptr, IRModule(), lowered).ok());
  EXPECT_FALSE(VerifyPrimFunc(Func({}, Evaluate(Cast(DataType::Int(32), p)), {p}), nullptr, IRModule(), lowered).ok());
}

TEST(VerifierTest, RampBroadcastShuffle) {
  Var i("i", DataType::Int(32)), l("l", DataType::Int(64)), v("v", DataType::Int(32, 4));
  ExpectError(Func({}, Evaluate(Ramp(i, l, 4, S(1, 5))), {i, l}), "mismatched types: int32 vs int64 in Ramp",
              S(1, 5));
  ExpectError(Func({}, Evaluate(Ramp(i, I32(1), 1, S(1, 6))), {i}), "Ramp must have more than 1 lane");
  ExpectError(Func({}, Evaluate(Ramp(v, v, 4, S(1, 7))), {v}), "Ramp base and stride must be scalars");
  ExpectError(Func({}, Evaluate(Broadcast(v, 4, S(2, 5))), {v}), "Broadcast of a non-scalar value of dtype int32x4",
              S(2, 5));
  ExpectError(Func({}, Evaluate(Shuffle({v}, {I32(0), I32(4)}, S(3, 5))), {v}),
              "Shuffle index 4 is out of range for 4 lanes", S(3, 5));
}

TEST(VerifierTest, BufferLoadRank) {
  Buffer A = Buffer::Make("A", {I32(8), I32(8)}, DataType::Float(32));
  Buffer B = Buffer::Make("B", {I32(8)}, DataType::Float(32));
  Var i("i", DataType::Int(32));
  ExpectError(Func({A, B}, For(i, I32(0), I32(8), ForKind::kSerial,
                               BufferStore(B, BufferLoad(A, {i}, S(8, 16)), {i}))),
              "BufferLoad of 2-dimensional buffer A with 1 indices", S(8, 16));
}

TEST(VerifierTest, BufferStoreRankAndValueType) {
  Buffer A = Buffer::Make("A", {I32(8)}, DataType::Float(32));
  Buffer B = Buffer::Make("B", {I32(8), I32(8)}, DataType::Float(32));
  Var i("i", DataType::Int(32));
  ExpectError(Func({A, B}, For(i, I32(0), I32(8), ForKind::kSerial,
                               BufferStore(B, BufferLoad(A, {i}), {i, i, I32(0)}, S(8, 9)))),
              "BufferStore to 2-dimensional buffer B with 3 indices", S(8, 9));
  ExpectError(Func({A}, BufferStore(A, I32(1), {I32(0)}, S(4, 5))),
              "mismatched types: stored value is int32 but buffer A holds float32", S(4, 5));
  // A vector index stores as many lanes.
  ExpectError(Func({A}, BufferStore(A, F32(1), {Ramp(I32(0), I32(1), 4)}, S(5, 5))),
              "stored value is float32 but buffer A holds float32x4");
}

TEST(VerifierTest, IndicesMustBeIntegers) {
  Buffer A = Buffer::Make("A", {I32(8)}, DataType::Float(32));
  Var f("f", DataType::Float(32));
  ExpectError(Func({A}, BufferStore(A, F32(0), {f}, S(3, 3)), {f}), "index 0 of buffer A has dtype float32", S(3, 3));
}

TEST(VerifierTest, LetValueTypes) {
  Var x("x", DataType::Int(32)), f("f", DataType::Float(32));
  ExpectError(Func({}, LetStmt(x, f, Evaluate(x), S(2, 5)), {f}),
              "LetStmt binds x of dtype int32 to a value of dtype float32", S(2, 5));
  Var y("y", DataType::Int(32));
  ExpectError(Func({}, Evaluate(Let(y, f, y, S(3, 5))), {f}), "Let binds y of dtype int32 to a value of dtype float32",
              S(3, 5));
}

TEST(VerifierTest, UndefinedVariables) {
  Buffer A = Buffer::Make("A", {I32(8)}, DataType::Float(32));
  Buffer B = Buffer::Make("B", {I32(8)}, DataType::Float(32));
  Var i("i", DataType::Int(32));
  Var c("C", DataType::Float(32));
  // Never defined: reported at the enclosing expression.
  ExpectError(Func({A, B}, For(i, I32(0), I32(8), ForKind::kSerial,
                               BufferStore(B, Add(BufferLoad(A, {i}), c, S(8, 16)), {i}))),
              "Undefined variable: C", S(8, 16));
  // A loop var used after its loop.
  Stmt loop = For(i, I32(0), I32(8), ForKind::kSerial, BufferStore(A, F32(1), {i}));
  Stmt after = BufferStore(A, BufferLoad(A, {i}, S(9, 12)), {I32(0)}, S(9, 5));
  ExpectError(Func({A}, SeqStmt({loop, after})), "Undefined variable: i (used after its scope ended)", S(9, 12));
}

TEST(VerifierTest, SSAViolation) {
  Buffer A = Buffer::Make("A", {I32(8)}, DataType::Float(32));
  Var i("i", DataType::Int(32), S(3, 9));
  Stmt l1 = For(i, I32(0), I32(8), ForKind::kSerial, BufferStore(A, F32(1), {i}));
  Stmt l2 = For(i, I32(0), I32(8), ForKind::kSerial, BufferStore(A, F32(2), {i}));
  ExpectError(Func({A}, SeqStmt({l1, l2})), "variable i is defined more than once", S(3, 9));
  Var n("n", DataType::Int(32));
  ExpectError(Func({}, LetStmt(n, I32(1), Evaluate(n)), {n}), "variable n is defined more than once");
  // check_well_formed=False turns the SSA rule off, and only that rule.
  VerifyOptions no_ssa;
  no_ssa.ssa = false;
  EXPECT_TRUE(VerifyPrimFunc(Func({A}, SeqStmt({l1, l2})), nullptr, IRModule(), no_ssa).ok());
  Stmt bad = For(i, I32(0), I32(8), ForKind::kSerial, BufferStore(A, F32(1), {i, i}));
  EXPECT_FALSE(VerifyPrimFunc(Func({A}, bad), nullptr, IRModule(), no_ssa).ok());
}

TEST(VerifierTest, FreeVariablesWithDefinedVarsOff) {
  Buffer A = Buffer::Make("A", {I32(8)}, DataType::Float(32));
  Var n("n", DataType::Int(32));
  Stmt body = BufferStore(A, F32(1), {n});
  ExpectError(Func({A}, body), "Undefined variable: n");
  // check_well_formed=False: `n = T.int32()` bound by nothing is a free variable, as in TVM.
  VerifyOptions off;
  off.defined_vars = false;
  EXPECT_TRUE(VerifyPrimFunc(Func({A}, body), nullptr, IRModule(), off).ok());
  // The other rules still run.
  EXPECT_FALSE(VerifyPrimFunc(Func({A}, BufferStore(A, F32(1), {n, n})), nullptr, IRModule(), off).ok());
}

// A declared buffer over a data pointer defined nowhere: an error for the well-formed check, a free
// variable of the function with it off (TVM's check_well_formed=False), as any other variable.
// A launch over a CTA's index in its cluster: valid TVMScript, refused by kiln's lowering rules.
TEST(VerifierTest, ClusterLaunchIsParsedButNotLowered) {
  Var cx("clusterCtaIdx.x", DataType::Int(32));
  Stmt launch = AttrStmt(IterVar(Range(), cx, IterVarType::kThreadIndex, "clusterCtaIdx.x"), "thread_extent", I32(2),
                         Evaluate(cx));
  VerifyOptions parse;
  parse.backend_rules = false;
  EXPECT_TRUE(VerifyPrimFunc(Func({}, launch), nullptr, IRModule(), parse).ok());
  ExpectError(Func({}, launch), "thread tag clusterCtaIdx.x (a cluster launch) is not lowered by kiln yet");
  Var bad("clusterIdx.x", DataType::Int(32));
  Stmt typo = AttrStmt(IterVar(Range(), bad, IterVarType::kThreadIndex, "clusterIdx.x"), "thread_extent", I32(2),
                       Evaluate(bad));
  EXPECT_FALSE(VerifyPrimFunc(Func({}, typo), nullptr, IRModule(), parse).ok());
}

TEST(VerifierTest, DeclBufferOverFreeDataPointer) {
  Buffer buf = Buffer::Make("buf", {I32(1)}, DataType::Float(32));
  Stmt body = DeclBuffer(buf, Evaluate(BufferLoad(buf, {I32(0)})));
  ExpectError(Func({}, body), "(data of buffer buf)");
  VerifyOptions off;
  off.defined_vars = false;
  EXPECT_TRUE(VerifyPrimFunc(Func({}, body), nullptr, IRModule(), off).ok());
}

TEST(VerifierTest, ForBoundTypes) {
  Buffer A = Buffer::Make("A", {I32(8)}, DataType::Float(32));
  Var i("i", DataType::Int(32));
  Var n("n", DataType::Int(64));
  ExpectError(Func({A}, For(i, I32(0), n, ForKind::kSerial, Evaluate(I32(0)), IterVar(), {}, S(4, 5)), {n}),
              "mismatched types: For loop extent is int64 but loop variable i is int32", S(4, 5));
  Var f("f", DataType::Float(32));
  ExpectError(Func({}, For(f, F32(0), F32(8), ForKind::kSerial, Evaluate(I32(0)))),
              "loop variable f has dtype float32");
  // A narrower literal bound is promoted (spec For rule 3), so this is fine.
  Var j("j", DataType::Int(64));
  ExpectOk(Func({}, For(j, I32(0), IntImm(DataType::Int(64), 8), ForKind::kSerial, Evaluate(j))));
}

TEST(VerifierTest, ThreadBindingRules) {
  auto loop = [](const char* tag, Stmt body, Span span = {}) {
    Var v(std::string("v_") + tag, DataType::Int(32));
    IterVar iv = *tag ? IterVar(Range(I32(0), I32(4)), Var(tag, DataType::Int(32)), IterVarType::kThreadIndex, tag)
                      : IterVar();
    return For(v, I32(0), I32(4), ForKind::kThreadBinding, body, iv, {}, span);
  };
  Stmt nop = Evaluate(I32(0));
  ExpectError(Func({}, loop("threadIdx.w", nop, S(2, 5))), "invalid thread tag \"threadIdx.w\"", S(2, 5));
  // Nested loops may bind one tag again (a cooperative fetch inside a threadIdx.x loop) ...
  ExpectOk(Func({}, loop("threadIdx.x", loop("threadIdx.x", nop))));
  // ... but launch_thread scopes of one tag may not nest.
  auto launch = [](Stmt body, Span span = {}) {
    IterVar iv(Range(), Var("tx", DataType::Int(32)), IterVarType::kThreadIndex, "threadIdx.x", span);
    return AttrStmt(iv, "thread_extent", I32(4), body, span);
  };
  ExpectError(Func({}, launch(launch(nop, S(3, 9)))), "thread tag threadIdx.x is already bound", S(3, 9));
  // TVM's parser accepts them: with the backend rules off they verify.
  VerifyOptions parser_rules;
  parser_rules.backend_rules = false;
  EXPECT_TRUE(VerifyPrimFunc(Func({}, launch(launch(nop))), nullptr, IRModule(), parser_rules).ok());
  ExpectError(Func({}, loop("", nop, S(4, 5))), "has no thread tag", S(4, 5));
  // Siblings with one tag are fine; so are vthreads.
  ExpectOk(Func({}, SeqStmt({loop("threadIdx.x", nop), loop("threadIdx.x", nop), loop("vthread.x", nop)})));
}

TEST(VerifierTest, WhileCondition) {
  Buffer A = Buffer::Make("A", {I32(8)}, DataType::Int(32));
  ExpectError(Func({A}, While(I32(1), BufferStore(A, I32(0), {I32(0)}), S(7, 5))),
              "while condition must not be a constant", S(7, 5));
  Var f("f", DataType::Float(32));
  ExpectError(Func({}, While(f, Evaluate(I32(0)), S(2, 5)), {f}), "while condition must be a bool");
}

TEST(VerifierTest, BreakAndContinueOutsideLoop) {
  Buffer A = Buffer::Make("A", {I32(8)}, DataType::Int(32));
  ExpectError(Func({A}, SeqStmt({BufferStore(A, I32(1), {I32(0)}), Break::Make(S(8, 5))})), "break outside loop",
              S(8, 5));
  ExpectError(Func({A}, Continue::Make(S(3, 5))), "continue outside loop", S(3, 5));
}

TEST(VerifierTest, AssertAndIfConditions) {
  Var x("x", DataType::Int(32));
  ExpectError(Func({}, AssertStmt(x, "RuntimeError", {String("m")}, Evaluate(I32(0)), S(2, 5)), {x}),
              "assert condition must be bool, got int32", S(2, 5));
  // As in TVM, an integer `if` condition is accepted (nonzero is true); a float one is not.
  ExpectOk(Func({}, IfThenElse(x, Evaluate(I32(0)), Stmt()), {x}));
  Var f("f", DataType::Float(32));
  ExpectError(Func({}, IfThenElse(f, Evaluate(I32(0)), Stmt(), S(3, 5)), {f}),
              "if condition must be bool or an integer, got float32", S(3, 5));
}

TEST(VerifierTest, ScopeIdDefinitions) {
  Buffer A = Buffer::Make("A", {I32(8)}, DataType::Int(32));
  Var bx("bx", DataType::Int(32)), by("by", DataType::Int(32)), tx("tx", DataType::UInt(32));
  // The vars are defined for the body only, one per extent; a deferred def has one var.
  ExpectOk(Func({A}, ScopeIdDefStmt({bx, by}, {I32(2), I32(4)}, ScopeBinding::kKernelCta,
                                    BufferStore(A, Add(bx, by), {bx}))));
  ExpectOk(Func({A}, ScopeIdDefStmt({tx}, {}, ScopeBinding::kCtaThread, Evaluate(tx))));
  ExpectError(Func({A}, SeqStmt({ScopeIdDefStmt({bx}, {I32(2)}, ScopeBinding::kKernelCta, Evaluate(bx)),
                                 Evaluate(bx)})),
              "Undefined variable: bx");
  ExpectError(Func({A}, ScopeIdDefStmt({bx}, {I32(2), I32(4)}, ScopeBinding::kKernelCta, Evaluate(bx), {}, S(4, 5))),
              "T.cta_id defines 1 vars for 2 extents", S(4, 5));
  ExpectError(Func({A}, ScopeIdDefStmt({bx, by}, {I32(2), I32(4)}, ScopeBinding::kCtaWarp, Evaluate(bx))),
              "T.warp_id only supports 1D extents");
  ExpectError(Func({A}, ScopeIdDefStmt({bx}, {I32(2)}, ScopeBinding::kKernelCta, Evaluate(bx), {I32(4)})),
              "preferred extents are only valid for T.cta_id_in_cluster");
  Var f("f", DataType::Float(32));
  ExpectError(Func({A}, ScopeIdDefStmt({f}, {I32(2)}, ScopeBinding::kWarpThread, Evaluate(f))),
              "scope id f has dtype float32; expected int32 or uint32");
}

TEST(VerifierTest, SBlockRules) {
  Buffer A = Buffer::Make("A", {I32(8), I32(8)}, DataType::Float(32));
  Var i("i", DataType::Int(32));
  Var vi("vi", DataType::Int(32));
  IterVar spatial(Range(I32(0), I32(8)), vi, IterVarType::kDataPar);
  // Binding count.
  SBlock b1 = MakeBlock("B", {spatial}, {}, {}, Evaluate(I32(0)));
  ExpectError(Func({A}, For(i, I32(0), I32(8), ForKind::kSerial, SBlockRealize({i, i}, True(), b1, S(5, 9)))),
              "sblock \"B\" has 1 iter vars but 2 iter values", S(5, 9));
  // Region rank.
  Var vj("vj", DataType::Int(32));
  SBlock b2 = MakeBlock("B", {IterVar(Range(I32(0), I32(8)), vj, IterVarType::kDataPar)}, {Region(A, {vj})}, {},
                        Evaluate(I32(0)), Stmt(), S(6, 9));
  ExpectError(Func({A}, For(i, I32(0), I32(8), ForKind::kSerial, SBlockRealize({i}, True(), b2))),
              "read region of sblock \"B\" of 2-dimensional buffer A has 1 ranges", S(6, 9));
}

TEST(VerifierTest, InitWithoutReductionIterVarIsAllowed) {
  // TVM's parser and well-formed check accept it; the init then runs on every iteration.
  Buffer A = Buffer::Make("A", {I32(8), I32(8)}, DataType::Float(32));
  Var i("i", DataType::Int(32)), vk("vk", DataType::Int(32));
  SBlock b = MakeBlock("B", {IterVar(Range(I32(0), I32(8)), vk, IterVarType::kDataPar)}, {}, {},
                       Evaluate(I32(0)), BufferStore(A, F32(0), {vk, vk}));
  ExpectOk(Func({A}, For(i, I32(0), I32(8), ForKind::kSerial, SBlockRealize({i}, True(), b))));
}

TEST(VerifierTest, IterVarUsedOutsideItsBlock) {
  Buffer A = Buffer::Make("A", {I32(8)}, DataType::Float(32));
  Var i("i", DataType::Int(32)), vi("vi", DataType::Int(32));
  SBlock b = MakeBlock("B", {IterVar(Range(I32(0), I32(8)), vi, IterVarType::kDataPar)}, {}, {},
                       BufferStore(A, F32(1), {vi}));
  Stmt after = BufferStore(A, F32(2), {vi}, S(9, 5));
  ExpectError(Func({A}, SeqStmt({For(i, I32(0), I32(8), ForKind::kSerial, SBlockRealize({i}, True(), b)), after})),
              "Undefined variable: vi (an iter var of sblock \"B\", used outside that sblock)", S(9, 5));
}

TEST(VerifierTest, CallsToIntrinsicsAndFunctions) {
  Var f("f", DataType::Float(32)), c("c", DataType::Bool());
  ExpectError(Func({}, Evaluate(Call(DataType::Float(32), Op("tirx.frobnicate"), {f}, S(2, 3))), {f}),
              "unknown intrinsic tirx.frobnicate", S(2, 3));
  ExpectError(Func({}, Evaluate(Call(DataType::Float(32), Op("tirx.if_then_else"), {c, f}, S(8, 16))), {c, f}),
              "T.if_then_else expects 3 arguments, got 2", S(8, 16));
  Var i("i", DataType::Int(32));
  ExpectError(Func({}, Evaluate(Call(DataType::Int(32), Op("tirx.exp"), {i}, S(3, 3))), {i}),
              "T.exp expects a floating-point argument, got int32", S(3, 3));

  // Calls to functions need the module.
  PrimFunc main = Func({}, Evaluate(Call(DataType::Int(32), GlobalVar("missing"), {i}, S(4, 4))), {i});
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("main"), main);
  DiagnosticList diags;
  EXPECT_FALSE(VerifyModuleTIR(mod, &diags).ok());
  ASSERT_EQ(diags.items().size(), 1u) << RenderAll(diags, "");
  EXPECT_EQ(diags.items()[0].message, "call to undefined function @missing");
  EXPECT_EQ(diags.items()[0].span.line, 4);

  PrimFunc two = Func({}, Evaluate(I32(0)), {Var("a", DataType::Int(32)), Var("b", DataType::Int(32))});
  mod.Add(GlobalVar("missing"), two);
  DiagnosticList d2;
  EXPECT_FALSE(VerifyModuleTIR(mod, &d2).ok());
  EXPECT_NE(RenderAll(d2, "").find("call to @missing passes 1 arguments, but it takes 2"), std::string::npos);
}

TEST(VerifierTest, ReturnTypeMustMatch) {
  Var f("f", DataType::Float(32));
  Stmt ret = Evaluate(Call(DataType::Float(32), Op("tirx.ret"), {f}, S(5, 5)));
  ExpectError(Func({}, ret, {f}, PrimType(DataType::Int(32))), "T.ret returns float32 but the function returns int32",
              S(5, 5));
  ExpectError(Func({}, ret, {f}), "T.ret returns float32 but the function has no return type", S(5, 5));
  // TVM's parser keeps an empty return type for an unannotated function that returns a value.
  VerifyOptions parser_rules;
  parser_rules.backend_rules = false;
  EXPECT_TRUE(VerifyPrimFunc(Func({}, ret, {f}), nullptr, IRModule(), parser_rules).ok());
  EXPECT_FALSE(VerifyPrimFunc(Func({}, ret, {f}, PrimType(DataType::Int(32))), nullptr, IRModule(), parser_rules).ok());
}

TEST(VerifierTest, CollectsAllErrorsWithSpansOrEnclosingSpans) {
  Buffer A = Buffer::Make("A", {I32(8), I32(8)}, DataType::Float(32));
  Var x("x", DataType::Int(32)), f("f", DataType::Float(32));
  // The Add has no span of its own: it is reported at its enclosing statement.
  Stmt s1 = Evaluate(Add(x, f), S(2, 5));
  Stmt s2 = BufferStore(A, F32(0), {I32(0)}, S(3, 5));
  Stmt s3 = Break::Make(S(4, 5));
  Result r = Verify(Func({A}, SeqStmt({s1, s2, s3}), {x, f}));
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
  ASSERT_EQ(r.diags.items().size(), 3u) << r.All();
  EXPECT_EQ(r.SpanOf("mismatched types: int32 vs float32").line, 2);
  EXPECT_EQ(r.SpanOf("BufferStore to 2-dimensional buffer A with 1 indices").line, 3);
  EXPECT_EQ(r.SpanOf("break outside loop").line, 4);
  // The status carries the rendered messages.
  EXPECT_NE(std::string(r.status.message()).find("3:5: error: BufferStore to 2-dimensional"), std::string::npos)
      << r.status;
}

}  // namespace
}  // namespace kiln::tir
