// Golden tests for the Doc writer: precedence and parentheses, tuples and targets, floats,
// strings, statements and layout. Trees are built by hand, as the TVMScript printer does.
#include "compiler/script/doc/writer.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "compiler/script/doc/compare.h"
#include "compiler/script/doc/reader.h"
#include "gtest/gtest.h"

namespace kiln::script::doc {
namespace {

ExprPtr N(const std::string& id) {
  auto e = std::make_shared<Expr>(ExprKind::kName);
  e->name = id;
  return e;
}
ExprPtr I(int64_t v) {
  auto e = std::make_shared<Expr>(ExprKind::kConstant);
  e->const_kind = Expr::ConstKind::kInt;
  e->int_value = v;
  return e;
}
ExprPtr F(double v) {
  auto e = std::make_shared<Expr>(ExprKind::kConstant);
  e->const_kind = Expr::ConstKind::kFloat;
  e->float_value = v;
  return e;
}
ExprPtr S(const std::string& v) {
  auto e = std::make_shared<Expr>(ExprKind::kConstant);
  e->const_kind = Expr::ConstKind::kStr;
  e->str_value = v;
  return e;
}
ExprPtr Bin(ExprPtr l, const std::string& op, ExprPtr r) {
  auto e = std::make_shared<Expr>(ExprKind::kBinOp);
  e->name = op;
  e->left = std::move(l);
  e->right = std::move(r);
  return e;
}
ExprPtr Un(const std::string& op, ExprPtr v) {
  auto e = std::make_shared<Expr>(ExprKind::kUnaryOp);
  e->name = op;
  e->value = std::move(v);
  return e;
}
ExprPtr Tup(std::vector<ExprPtr> elts) {
  auto e = std::make_shared<Expr>(ExprKind::kTuple);
  e->elts = std::move(elts);
  return e;
}
ExprPtr Call(ExprPtr f, std::vector<ExprPtr> args, std::vector<Keyword> kw = {}) {
  auto e = std::make_shared<Expr>(ExprKind::kCall);
  e->func = std::move(f);
  e->args = std::move(args);
  e->keywords = std::move(kw);
  return e;
}
ExprPtr Attr(ExprPtr v, const std::string& a) {
  auto e = std::make_shared<Expr>(ExprKind::kAttribute);
  e->value = std::move(v);
  e->name = a;
  return e;
}
ExprPtr Sub(ExprPtr v, ExprPtr idx) {
  auto e = std::make_shared<Expr>(ExprKind::kSubscript);
  e->value = std::move(v);
  e->slice = std::move(idx);
  return e;
}
ExprPtr Sl(ExprPtr lo, ExprPtr hi, ExprPtr step = nullptr) {
  auto e = std::make_shared<Expr>(ExprKind::kSlice);
  e->lower = std::move(lo);
  e->upper = std::move(hi);
  e->step = std::move(step);
  return e;
}
StmtPtr St(StmtKind k) { return std::make_shared<Stmt>(k); }

// Written text must read back to the same tree.
void ExpectReadsBack(const Module& m) {
  std::string text = Write(m);
  absl::StatusOr<Module> back = Read(text, "w.py");
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << text;
  std::string why;
  EXPECT_TRUE(StructurallyEqual(m, *back, &why)) << why << "\n" << text;
}

TEST(WriterTest, MinimalParentheses) {
  ExprPtr a = N("a"), b = N("b"), c = N("c");
  EXPECT_EQ(WriteExpr(*Bin(Bin(a, "+", b), "*", c)), "(a + b) * c");
  EXPECT_EQ(WriteExpr(*Bin(a, "+", Bin(b, "*", c))), "a + b * c");
  EXPECT_EQ(WriteExpr(*Bin(a, "-", Bin(b, "-", c))), "a - (b - c)");
  EXPECT_EQ(WriteExpr(*Bin(Bin(a, "-", b), "-", c)), "a - b - c");
  EXPECT_EQ(WriteExpr(*Un("-", Bin(a, "+", b))), "-(a + b)");
  EXPECT_EQ(WriteExpr(*Un("-", a)), "-a");
  EXPECT_EQ(WriteExpr(*Un("-", Un("-", a))), "--a");
  EXPECT_EQ(WriteExpr(*Bin(Un("-", a), "**", b)), "(-a) ** b");
  EXPECT_EQ(WriteExpr(*Bin(a, "**", Un("-", b))), "a ** -b");
  EXPECT_EQ(WriteExpr(*Bin(Bin(a, "**", b), "**", c)), "(a ** b) ** c");
  EXPECT_EQ(WriteExpr(*Bin(a, "**", Bin(b, "**", c))), "a ** b ** c");
  EXPECT_EQ(WriteExpr(*Bin(I(-1), "**", I(2))), "(-1) ** 2");
  EXPECT_EQ(WriteExpr(*Bin(a, "*", I(-1))), "a * -1");
  EXPECT_EQ(WriteExpr(*Attr(Bin(a, "+", b), "x")), "(a + b).x");
  EXPECT_EQ(WriteExpr(*Attr(I(1), "x")), "(1).x");
  EXPECT_EQ(WriteExpr(*Call(Attr(N("T"), "max"), {Bin(a, "+", b), c})), "T.max(a + b, c)");

  auto cmp = std::make_shared<Expr>(ExprKind::kCompare);
  cmp->left = Bin(a, "|", b);
  cmp->ops = {"<", "is not"};
  cmp->comparators = {b, c};
  EXPECT_EQ(WriteExpr(*cmp), "a | b < b is not c");
  auto both = std::make_shared<Expr>(ExprKind::kBoolOp);
  both->name = "and";
  auto either = std::make_shared<Expr>(ExprKind::kBoolOp);
  either->name = "or";
  either->values = {a, b};
  both->values = {either, Un("not", c)};
  EXPECT_EQ(WriteExpr(*both), "(a or b) and not c");
  EXPECT_EQ(WriteExpr(*Un("not", both)), "not ((a or b) and not c)");
  auto ifexp = std::make_shared<Expr>(ExprKind::kIfExp);
  ifexp->value = a;
  ifexp->test = b;
  ifexp->orelse = c;
  EXPECT_EQ(WriteExpr(*Bin(ifexp, "+", I(1))), "(a if b else c) + 1");
  auto lam = std::make_shared<Expr>(ExprKind::kLambda);
  lam->lambda_args = {"x"};
  lam->value = ifexp;
  EXPECT_EQ(WriteExpr(*lam), "lambda x: a if b else c");
}

TEST(WriterTest, TuplesAndSubscripts) {
  ExprPtr i = N("i"), j = N("j");
  EXPECT_EQ(WriteExpr(*Tup({i})), "(i,)");
  EXPECT_EQ(WriteExpr(*Tup({i, j})), "(i, j)");
  EXPECT_EQ(WriteExpr(*Tup({})), "()");
  EXPECT_EQ(WriteExpr(*Sub(N("A"), Tup({i, j}))), "A[i, j]");
  EXPECT_EQ(WriteExpr(*Sub(N("A"), Tup({i}))), "A[i,]");
  EXPECT_EQ(WriteExpr(*Sub(N("A"), Tup({Sl(I(0), I(16)), Sl(nullptr, nullptr)}))), "A[0:16, :]");
  EXPECT_EQ(WriteExpr(*Sub(N("A"), Sl(nullptr, nullptr, I(2)))), "A[::2]");
  EXPECT_EQ(WriteExpr(*Call(N("T"), {Tup({I(8)})}, {Keyword{"dtype", S("f"), {}}})),
            "T((8,), dtype=\"f\")");

  Module m;
  auto assign = St(StmtKind::kAssign);
  assign->targets = {Tup({N("vi"), N("vj")})};
  assign->value = Call(Attr(Attr(N("T"), "axis"), "remap"), {S("SS"), Tup({i, j})});
  auto loop = St(StmtKind::kFor);
  loop->target = Tup({i, j});
  loop->iter = Call(Attr(N("T"), "grid"), {I(4), I(4)});
  loop->body = {assign};
  m.body = {loop};
  EXPECT_EQ(Write(m),
            "for i, j in T.grid(4, 4):\n    vi, vj = T.axis.remap(\"SS\", (i, j))\n");
  ExpectReadsBack(m);
}

TEST(WriterTest, Floats) {
  EXPECT_EQ(FormatFloat(1.0), "1.0");
  EXPECT_EQ(FormatFloat(0.1), "0.10000000000000001");
  EXPECT_EQ(FormatFloat(1e-5), "1.0000000000000001e-05");
  EXPECT_EQ(FormatFloat(0.5), "0.5");
  EXPECT_EQ(FormatFloat(1e16), "10000000000000000.0");
  EXPECT_EQ(FormatFloat(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(FormatFloat(1.5e300), "1500000000000000078757140382806630373056702871662238732373781173267703686983362293679557062620671796065556665749325817265413784853040645863467188277180060474272580801389863705606745350692182135089053429852456199917621678558451461320111979114170213741868888183230085264257173504208294580298189100810240.0");
  EXPECT_EQ(FormatFloat(-2.5), "-2.5");
  EXPECT_EQ(FormatFloat(-0.0), "-0.0");
  EXPECT_EQ(FormatFloat(0.30000000000000004), "0.30000000000000004");
  EXPECT_EQ(FormatFloat(5e-324), "4.9406564584124654e-324");
  EXPECT_EQ(FormatFloat(std::numeric_limits<double>::infinity()), "1e999");
  EXPECT_EQ(WriteExpr(*F(-0.5)), "-0.5");
}

TEST(WriterTest, FloatsRoundTripThroughReader) {
  for (double v : {1.0, 0.1, 1e-5, 123.456, 1e22, 2.2250738585072014e-308, 1.0 / 3, 65504.0,
                   std::numeric_limits<double>::infinity()}) {
    absl::StatusOr<Module> m = Read("x = " + FormatFloat(v) + "\n", "f.py");
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(m->body[0]->value->float_value, v) << FormatFloat(v);
  }
}

TEST(WriterTest, Strings) {
  EXPECT_EQ(QuoteString("float32"), "\"float32\"");
  EXPECT_EQ(QuoteString("a\"b'c\\d"), "\"a\\\"b'c\\\\d\"");
  EXPECT_EQ(QuoteString("l1\nl2\t\r\x01\x7f"), "\"l1\\nl2\\t\\r\\x01\\x7f\"");
  EXPECT_EQ(QuoteString("\xC3\xA9"), "\"\xC3\xA9\"");
  for (std::string v : {std::string("a\"b'c\\d"), std::string("\x01\n\xC3\xA9 z")}) {
    absl::StatusOr<Module> m = Read("x = " + QuoteString(v) + "\n", "s.py");
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(m->body[0]->value->str_value, v);
  }
}

TEST(WriterTest, ModuleLayoutAndComments) {
  Module m;
  m.leading_comments = {Comment{"from tvm.script import tirx as T", {}}};
  auto f = St(StmtKind::kFunctionDef);
  f->name = "main";
  f->decorators = {Call(Attr(N("T"), "prim_func"), {}, {Keyword{"s_tir", N("True"), {}}})};
  Arg a;
  a.name = "A";
  a.annotation = Call(Attr(N("T"), "Buffer"), {Tup({I(8)}), S("float32")});
  Arg k;
  k.name = "k";
  k.kind = Arg::Kind::kKeywordOnly;
  k.default_value = I(1);
  f->args = {a, k};
  f->returns = Attr(N("T"), "int32");
  auto attr = St(StmtKind::kExpr);
  attr->value = Call(Attr(N("T"), "func_attr"), {});
  auto ret = St(StmtKind::kReturn);
  ret->value = I(0);
  ret->leading_comments = {Comment{"with T.sblock(\"root\"):", {}}};
  f->body = {attr, ret};
  auto g = St(StmtKind::kFunctionDef);
  g->name = "g";
  auto ext = St(StmtKind::kAssign);
  ext->targets = {N("ext")};
  ext->value = Call(Attr(N("R"), "ExternFunc"), {S("ext")});
  auto cls = St(StmtKind::kClassDef);
  cls->name = "Module";
  cls->decorators = {Attr(N("I"), "ir_module")};
  cls->body = {ext, f, g};
  m.body = {cls};
  EXPECT_EQ(Write(m),
            "# from tvm.script import tirx as T\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    ext = R.ExternFunc(\"ext\")\n"
            "    @T.prim_func(s_tir=True)\n"
            "    def main(A: T.Buffer((8,), \"float32\"), *, k=1) -> T.int32:\n"
            "        T.func_attr()\n"
            "        # with T.sblock(\"root\"):\n"
            "        return 0\n"
            "\n"
            "    def g():\n"
            "        pass\n");
}

// A nested def is followed by a blank line too, whatever follows it.
TEST(WriterTest, BlankLineAfterNestedFunction) {
  auto inner = St(StmtKind::kFunctionDef);
  inner->name = "inner";
  inner->body = {St(StmtKind::kPass)};
  auto ret = St(StmtKind::kReturn);
  ret->value = N("inner");
  auto outer = St(StmtKind::kFunctionDef);
  outer->name = "outer";
  outer->body = {inner, ret};
  Module m;
  m.body = {outer};
  EXPECT_EQ(Write(m), "def outer():\n    def inner():\n        pass\n\n    return inner\n");
  ExpectReadsBack(m);
}

TEST(WriterTest, StatementsReadBack) {
  absl::StatusOr<Module> m = Read(
      "import a.b as c\nfrom .. import d as e, f\nx: T.int32\ny: T.let[T.int32] = v\n"
      "A[i] += 1\ndel a, b\nglobal q\nif a:\n    pass\nelif b:\n    x = 1\nelse:\n    y = 2\n"
      "while not a:\n    break\nelse:\n    continue\nwith a as (b, c), d:\n    assert x, \"m\"\n"
      "def f[n](a, *b, c: int = 3, **d):\n    return\na = b = {1: [x for x, y in z if x]}\n"
      "s = {*a}, {k: v for k in d}, (g for g in h), 10 ** 40, 0x10\n",
      "s.py");
  ASSERT_TRUE(m.ok()) << m.status();
  ExpectReadsBack(*m);
  std::string text = Write(*m);
  EXPECT_NE(text.find("else:\n    if b:\n        x = 1\n    else:\n"), std::string::npos) << text;
  EXPECT_NE(text.find("with a as (b, c), d:\n"), std::string::npos) << text;
  EXPECT_NE(text.find("def f[n](a, *b, c: int = 3, **d):\n"), std::string::npos) << text;
  EXPECT_NE(text.find("s = ({*a}, {k: v for k in d}, (g for g in h), 10 ** 40, 16)\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace kiln::script::doc
