// ParseScript: what each TVMScript construct becomes, selection of definitions, diagnostics with
// positions and recovery, hostile input.
#include "compiler/script/script.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/roundtrip.h"
#include "gtest/gtest.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::script {
namespace {

using namespace ir;  // NOLINT

constexpr char kTwoFuncs[] = R"(
@T.prim_func
def first(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(1.0)

@T.prim_func
def second(A: T.Buffer((4,), "int32")):
    A[0] = 7
)";

TEST(ParseScriptTest, SelectsTheLastDefinitionOrTheNamedOne) {
  absl::StatusOr<ObjectRef> last = ParseScript(kTwoFuncs, "two.py");
  ASSERT_TRUE(last.ok()) << last.status();
  const auto* f = last->as<PrimFuncNode>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->attrs.Get(String("global_symbol")).as<StringNode>()->value, "second");
  ParseOptions o;
  o.name = "first";
  absl::StatusOr<ObjectRef> first = ParseScript(kTwoFuncs, "two.py", nullptr, o);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->as<PrimFuncNode>()->attrs.Get(String("global_symbol")).as<StringNode>()->value, "first");
  o.name = "third";
  absl::StatusOr<ObjectRef> missing = ParseScript(kTwoFuncs, "two.py", nullptr, o);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("found: first, second"), std::string::npos);
  EXPECT_EQ(AsModule(*first).Functions().size(), 1u);
}

TEST(ParseScriptTest, ImportsAndAliases) {
  const char* src = R"(import tvm
from tvm.script import tirx as TT

@tvm.script.tirx.prim_func
def f(A: TT.Buffer((2,), "int8")):
    A[1] = TT.int8(-3)
)";
  absl::StatusOr<ObjectRef> r = ParseScript(src, "alias.py");
  ASSERT_TRUE(r.ok()) << r.status();
  const auto* store = r->as<PrimFuncNode>()->body.as<BufferStoreNode>();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->value.as<IntImmNode>()->value, -3);
  EXPECT_EQ(store->value.dtype(), DataType::Int(8));
}

TEST(ParseScriptTest, ModuleLevelPythonIsRejectedExceptConstants) {
  absl::StatusOr<ObjectRef> r = ParseScript("import numpy as np\n" + std::string(kTwoFuncs), "np.py");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("np.py:1:8: error: import of 'numpy' is not supported at module level"), std::string::npos)
      << r.status();
  const char* with_const = R"(N = 16
@T.prim_func
def f(A: T.Buffer((N,), "float32")):
    for i in range(N // 2):
        A[i] = T.float32(0.0)
)";
  absl::StatusOr<ObjectRef> ok = ParseScript(with_const, "c.py");
  ASSERT_TRUE(ok.ok()) << ok.status();
  const auto* loop = ok->as<PrimFuncNode>()->body.as<ForNode>();
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->extent.as<IntImmNode>()->value, 8);
}

TEST(ParseScriptTest, FStringsEvaluateToStrings) {
  const char* src = R"(name = "ld"
@T.prim_func
def f(A: T.Buffer((1,), "int32")):
    T.evaluate(T.call_extern("int32", f"{name}_{name!r}_{2 * 3}_{0.1}_{2.0}_{True}_{None}{{}}"))
)";
  absl::StatusOr<ObjectRef> r = ParseScript(src, "f.py");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NE(printer::Print(*r).find(R"("ld_'ld'_6_0.1_2.0_True_None{}")"), std::string::npos)
      << printer::Print(*r);
  // A value with no Python text (a TIR expression) is an error, as is a format spec.
  absl::StatusOr<ObjectRef> prim = ParseScript(R"(@T.prim_func
def f(n: T.int32):
    T.evaluate(T.call_extern("int32", f"a{n}"))
)", "g.py");
  ASSERT_FALSE(prim.ok());
  EXPECT_NE(prim.status().message().find("g.py:3:43: error: an f-string cannot format a PrimExpr"),
            std::string::npos) << prim.status();
  absl::StatusOr<ObjectRef> spec = ParseScript(R"(@T.prim_func
def f(n: T.int32):
    T.evaluate(T.call_extern("int32", f"a{1:>4}"))
)", "h.py");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("f-string format specs are not supported"), std::string::npos);
}

TEST(ParseScriptTest, DiagnosticsCarryPositionsCaretsAndRecover) {
  const char* src = R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = B[0]
    A[1] = C[1]
    A[2] = A[0]
)";
  DiagnosticList diags;
  absl::StatusOr<ObjectRef> r = ParseScript(src, "bad.py", &diags);
  ASSERT_TRUE(IsInvalidArgument(r, "Undefined variable: B"));
  // Both undefined names are reported, not just the first.
  ASSERT_EQ(diags.items().size(), 2u);
  EXPECT_EQ(diags.items()[0].span.line, 3);
  EXPECT_EQ(diags.items()[0].span.column, 12);
  EXPECT_EQ(diags.items()[1].span.line, 4);
  const std::string msg(r.status().message());
  EXPECT_NE(msg.find("bad.py:3:12: error: Undefined variable: B\n        A[0] = B[0]\n               ^"), std::string::npos) << msg;
}

TEST(ParseScriptTest, PoisonedNamesDoNotCascade) {
  const char* src = R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    x: T.let[T.int32] = T.nonexistent(1)
    A[x] = T.float32(0.0)
)";
  DiagnosticList diags;
  ASSERT_TRUE(IsInvalidArgument(ParseScript(src, "p.py", &diags), "T.nonexistent is not a TVMScript function"));
  EXPECT_EQ(diags.items().size(), 1u) << RenderAll(diags, src);
}

TEST(ParseScriptTest, LocalScalarsLetsAndLetExpressions) {
  const char* src = R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    acc: T.float32
    acc = T.float32(0.0)
    for i in range(4):
        k: T.let[T.int32] = 3 - i
        acc = acc + A[k]
    A[0] = T.Let(v + v, where={v: acc})
)";
  absl::StatusOr<ObjectRef> r = ParseScript(src, "s.py");
  ASSERT_TRUE(r.ok()) << r.status();
  const auto* alloc = r->as<PrimFuncNode>()->body.as<AllocBufferNode>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_TRUE(alloc->buffer->shape.empty());
  EXPECT_EQ(alloc->buffer->scope(), "local");
  EXPECT_TRUE(alloc->annotations.count(String("tirx.local_scalar")));
  std::string printed = printer::Print(*r);
  EXPECT_NE(printed.find("k: T.let[T.int32] = 3 - i"), std::string::npos) << printed;
  EXPECT_NE(printed.find("T.Let(v + v, where={v: acc})"), std::string::npos) << printed;
  EXPECT_TRUE(CheckRoundTrip(src, "s.py").ok());
}

TEST(ParseScriptTest, RelaxCallTirPassesSymbolicValuesAsPrimValues) {
  const char* src = R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def k(a: T.handle, b: T.handle, n: T.int64):
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.k, (x, n), out_ty=R.Tensor((n,), dtype="float32"))
        return y
)";
  absl::StatusOr<ObjectRef> r = ParseScript(src, "m.py");
  ASSERT_TRUE(r.ok()) << r.status();
  IRModule mod = Downcast<IRModule>(*r);
  const auto* main = mod.Lookup("main").as<relax::FunctionNode>();
  ASSERT_NE(main, nullptr);
  const auto* seq = main->body.as<relax::SeqExprNode>();
  const auto* call = seq->blocks[0]->bindings[0].as<relax::VarBindingNode>()->value.as<relax::CallNode>();
  ASSERT_NE(call, nullptr);
  const auto* args = call->args[1].as<relax::TupleNode>();
  ASSERT_NE(args, nullptr);
  ASSERT_EQ(args->fields.size(), 2u);
  const auto* pv = args->fields[1].as<relax::PrimValueNode>();
  ASSERT_NE(pv, nullptr);
  // The `n` of the body is the `n` of the signature.
  const auto* param_shape = main->params[0]->ty.as<TensorTypeNode>()->shape.as<relax::ShapeExprNode>();
  EXPECT_TRUE(pv->value.same_as(param_shape->values[0]));
}

TEST(ParseScriptTest, OldSpellingsWarnAndTirVarsIsRejected) {
  const char* src = R"(from tvm.script import tir as T
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("b"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(0.0)
)";
  DiagnosticList diags;
  ASSERT_TRUE(ParseScript(src, "old.py", &diags).ok());
  ASSERT_EQ(diags.items().size(), 2u);
  EXPECT_EQ(diags.items()[0].severity, Severity::kWarning);
  EXPECT_NE(diags.items()[1].message.find("T.sblock"), std::string::npos);
}

TEST(ParseScriptTest, DeepNestingIsAnErrorNotACrash) {
  std::string expr;
  for (int i = 0; i < 5000; ++i) expr += "(";
  expr += "1";
  for (int i = 0; i < 5000; ++i) expr += ")";
  std::string src = "@T.prim_func\ndef f(A: T.Buffer((1,), \"int32\")):\n    A[0] = " + expr + "\n";
  absl::StatusOr<ObjectRef> r = ParseScript(src, "deep.py");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("deep.py:3:"), std::string::npos) << r.status();
}

TEST(ParseScriptTest, VerifierErrorsPointAtTheSource) {
  const char* src = R"(@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.Broadcast(B[i], 4)
)";
  absl::StatusOr<ObjectRef> r = ParseScript(src, "v.py");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("v.py:4:"), std::string::npos) << r.status();
}

TEST(ParseScriptTest, StoreOfAnotherElementTypeIsCast) {
  // As TVM's builder does: the value is cast to the buffer's element type.
  const char* src = R"(@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        A[i] = B[i]
)";
  absl::StatusOr<ObjectRef> r = ParseScript(src, "v.py");
  ASSERT_TRUE(r.ok()) << r.status();
  const auto* loop = Downcast<PrimFunc>(*r)->body.as<ForNode>();
  ASSERT_NE(loop, nullptr);
  const auto* store = loop->body.as<BufferStoreNode>();
  ASSERT_NE(store, nullptr);
  const auto* cast = store->value.as<CastNode>();
  ASSERT_NE(cast, nullptr);
  EXPECT_EQ(cast->dtype, DataType::Float(32));
}

TEST(ParseScriptTest, PythonLevelComprehensionsAndTupleIndices) {
  const char* src = R"(@T.prim_func
def f(A: T.Buffer((2, 2), "int32"), M: T.Buffer((4,), "bool")):
    l = T.meta_var([i * 2 for i in range(1, 10, 2) if i != 5])
    A[(0, 1)] = l[2] + len([p for p, q in [(1, 2), (3, 4)] for r in range(3)])
    T.evaluate(tvm.tirx.all(*([M[k] for k in range(2)] + [M[3]])))
)";
  absl::StatusOr<ObjectRef> r = ParseScript(src, "c.py");
  ASSERT_TRUE(r.ok()) << r.status();
  std::string printed = printer::Print(*r);
  // [2, 6, 14, 18][2] + 6; A[(0, 1)] is A[0, 1].
  EXPECT_NE(printed.find("A[0, 1] = 20"), std::string::npos) << printed;
  EXPECT_NE(printed.find("T.evaluate(M[0] and M[1] and M[3])"), std::string::npos) << printed;
}

TEST(ParseScriptTest, CheckWellFormedFalseSkipsTheSSARule) {
  const char* body = R"(
def f(A: T.Buffer((2,), "int32")):
    x = T.int32()
    T.bind(A[0], var=x)
    A[0] = x
    T.bind(A[1], var=x)
    A[1] = x
)";
  std::string off = std::string("@T.prim_func(check_well_formed=False)") + body;
  ParseInfo info;
  absl::StatusOr<ObjectRef> r = ParseScript(off, "w.py", nullptr, {}, &info);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(info.well_formed_check_off);
  std::string printed = printer::Print(*r);
  EXPECT_NE(printed.find("T.bind(A[1], var=x)"), std::string::npos) << printed;
  EXPECT_TRUE(CheckRoundTrip(off, "w.py").ok());
  EXPECT_TRUE(IsInvalidArgument(ParseScript(std::string("@T.prim_func") + body, "w.py"),
                                "variable x is defined more than once (TIR is SSA)"));
}

TEST(ParseScriptTest, CheckWellFormedFalseAllowsFreeVariables) {
  // TVM's well-formed check is what rejects a variable bound by nothing: off, it is a free
  // variable of the function, printed as its declaration.
  const char* body = R"(
def f(A: T.Buffer((4,), "int32")):
    a = T.int32()
    A[0] = a + 1
)";
  std::string off = std::string("@T.prim_func(check_well_formed=False)") + body;
  absl::StatusOr<ObjectRef> r = ParseScript(off, "w.py");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NE(printer::Print(*r).find("a = T.int32()"), std::string::npos) << printer::Print(*r);
  EXPECT_TRUE(CheckRoundTrip(off, "w.py").ok());
  EXPECT_TRUE(IsInvalidArgument(ParseScript(std::string("@T.prim_func") + body, "w.py"), "Undefined variable: a"));
}

TEST(ParseScriptTest, RelaxSymbolicRedeclarationKeepsTheSignatureDType) {
  const char* src = R"(
@R.function
def f(x: R.Tensor(("m", "n"), "float32")):
    m = T.int64()
    n = T.int32()
    return x
)";
  // TVM's bind_assign_value reports it at the assignment target.
  EXPECT_TRUE(IsInvalidArgument(ParseScript(src, "r.py"),
                                "r.py:5:5: error: expected the same dtype for PrimType values but got int32 vs int64"));
}

TEST(ParseScriptTest, IterVarNodeWithRangeDomain) {
  const char* src = R"(@T.prim_func
def f(A: T.Buffer((256,), "float32")):
    tx = T.int32()
    T.attr(T.iter_var(tx, T.Range(2, 258), "ThreadIndex", "threadIdx.x"), "thread_extent", 256)
    A[tx] = T.float32(0)
)";
  absl::StatusOr<ObjectRef> r = ParseScript(src, "i.py");
  ASSERT_TRUE(r.ok()) << r.status();
  const auto* attr = r->as<PrimFuncNode>()->body.as<AttrStmtNode>();
  ASSERT_NE(attr, nullptr);
  const auto* iv = attr->node.as<IterVarNode>();
  ASSERT_NE(iv, nullptr);
  EXPECT_EQ(iv->iter_type, IterVarType::kThreadIndex);
  EXPECT_EQ(iv->thread_tag, "threadIdx.x");
  ASSERT_TRUE(iv->dom.defined());
  EXPECT_EQ(iv->dom->min.as<IntImmNode>()->value, 2);
  EXPECT_EQ(iv->dom->extent.as<IntImmNode>()->value, 256);
}

// A global_symbol that cannot be a `def` name (not an identifier, or a keyword) stays in the
// function's attributes, and the function prints under the default name, so the text parses back.
TEST(ParseScriptTest, SymbolsThatAreNotDefNamesRoundTrip) {
  for (const char* symbol : {"fused_kernel[", "for", "0main"}) {
    const std::string src = std::string("@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n"
                                        "    T.func_attr({\"global_symbol\": \"") + symbol + "\"})\n    A[0] = T.float32(1)\n";
    std::string printed;
    absl::Status st = CheckRoundTrip(src, "sym.py", &printed);
    EXPECT_TRUE(st.ok()) << symbol << ": " << st << "\n" << printed;
    EXPECT_NE(printed.find(absl::StrCat("\"global_symbol\": \"", symbol, "\"")), std::string::npos) << printed;
  }
  absl::StatusOr<ObjectRef> f = ParseScript(
      "@T.prim_func\ndef main():\n    T.func_attr({\"global_symbol\": \"my_kernel\"})\n    T.evaluate(0)\n", "k.py");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(PrintOptionsFor(*f).func_name, "my_kernel");
}
}  // namespace
}  // namespace kiln::script

namespace kiln::script {
namespace {

constexpr char kTemplated[] = R"(# from tvm.script import tirx as T

@T.prim_func
def scale(A: T.Buffer((M, M), DT), B: T.Buffer((M, M), DT)):
    for i, j in T.grid(M, M):
        B[i, j] = A[i, j] * T.Cast(DT, FACTOR)
)";

TEST(ParseDefinesTest, DefinedValuesAreSubstitutedAsModuleConstants) {
  ParseOptions o;
  o.defines = {{"M", "16"}, {"DT", "float16"}, {"FACTOR", "-2"}};
  absl::StatusOr<ir::ObjectRef> f = ParseScript(kTemplated, "t.py", nullptr, o);
  ASSERT_TRUE(f.ok()) << f.status();
  std::string text = printer::Print(*f);
  EXPECT_NE(text.find("T.Buffer((16, 16), \"float16\")"), std::string::npos) << text;
  EXPECT_NE(text.find("T.Cast(\"float16\", -2)"), std::string::npos) << text;

  // The same source with another binding is another kernel; without one it does not parse.
  o.defines["M"] = "(32)";
  absl::StatusOr<ir::ObjectRef> g = ParseScript(kTemplated, "t.py", nullptr, o);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(printer::Print(*g).find("(32, 32)"), std::string::npos);
  absl::Status undefined = ParseScript(kTemplated, "t.py").status();
  EXPECT_NE(undefined.message().find("Undefined variable: M"), std::string::npos) << undefined;
}

TEST(ParseDefinesTest, OnlyLiteralValuesAndNamesAreAccepted) {
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"M", "f(1)"}, {"M", "1 +"}, {"2M", "1"}, {"M", "[x for x in y]"}}) {
    ParseOptions o;
    o.defines = {{name, value}, {"DT", "float32"}, {"FACTOR", "1"}};
    absl::Status st = ParseScript(kTemplated, "t.py", nullptr, o).status();
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << name << "=" << value;
    EXPECT_NE(st.message().find("define"), std::string::npos) << st;
  }
}

}  // namespace
}  // namespace kiln::script
