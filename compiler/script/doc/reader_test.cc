// Tests for the Doc reader: each construct, positions, CPython-compatible errors, and the
// read → write → read round trip over the conformance corpus in ../shared/corpus.
#include "compiler/script/doc/reader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/script/doc/compare.h"
#include "compiler/script/doc/writer.h"
#include "gtest/gtest.h"
#include "tests/util/shared_dir.h"

namespace kiln::script::doc {
namespace {

Module ReadOk(const std::string& src) {
  ir::DiagnosticList diags;
  absl::StatusOr<Module> m = Read(src, "t.py", &diags);
  EXPECT_TRUE(m.ok()) << m.status() << "\n--- source:\n" << src;
  return m.ok() ? *std::move(m) : Module();
}

// "LINE:COL: message" of the error for `src`, checking the status and diagnostic agree.
std::string ErrorOf(const std::string& src, const ReadOptions& options = {}) {
  ir::DiagnosticList diags;
  absl::StatusOr<Module> m = Read(src, "t.py", &diags, options);
  if (m.ok()) return "OK";
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(diags.items().size(), 1u);
  if (diags.items().empty()) return "no diagnostic";
  const ir::Diagnostic& d = diags.items()[0];
  EXPECT_EQ(d.span.source_name(), "t.py");
  std::string where = std::to_string(d.span.line) + ":" + std::to_string(d.span.column);
  EXPECT_NE(m.status().message().find("t.py:" + where + ": " + d.message), std::string::npos)
      << m.status();
  return where + ": " + d.message;
}

const Expr& ValueOf(const Module& m, size_t i = 0) { return *m.body.at(i)->value; }

// Writes the first statement's value back out: a compact way to check tree shape.
std::string Shape(const std::string& expr_src) {
  Module m = ReadOk("x = " + expr_src + "\n");
  if (m.body.empty()) return "";
  return WriteExpr(ValueOf(m));
}

TEST(ReaderTest, DecoratedFunctionWithAnnotations) {
  Module m = ReadOk(
      "@T.prim_func(private=True, s_tir=True)\n"
      "def main(A: T.Buffer((8,), \"float32\"), n: T.int32 = 4, *args, k=1, **kw) -> T.int32:\n"
      "    return n\n");
  ASSERT_EQ(m.body.size(), 1u);
  const Stmt& f = *m.body[0];
  EXPECT_EQ(f.kind, StmtKind::kFunctionDef);
  EXPECT_EQ(f.name, "main");
  EXPECT_EQ(f.pos.line, 2);
  EXPECT_EQ(f.pos.end_line, 3);
  ASSERT_EQ(f.decorators.size(), 1u);
  EXPECT_EQ(f.decorators[0]->kind, ExprKind::kCall);
  EXPECT_EQ(f.decorators[0]->keywords[1].arg, "s_tir");
  ASSERT_EQ(f.args.size(), 5u);
  EXPECT_EQ(f.args[0].name, "A");
  EXPECT_EQ(f.args[0].pos.col, 10);
  EXPECT_EQ(f.args[1].default_value->int_value, 4);
  EXPECT_EQ(f.args[2].kind, Arg::Kind::kVarArgs);
  EXPECT_EQ(f.args[3].kind, Arg::Kind::kKeywordOnly);
  EXPECT_EQ(f.args[4].kind, Arg::Kind::kKwArgs);
  ASSERT_NE(f.returns, nullptr);
  EXPECT_EQ(f.body[0]->kind, StmtKind::kReturn);
}

TEST(ReaderTest, ClassTypeParamsAndNestedFunctions) {
  Module m = ReadOk(
      "@I.ir_module\nclass Module(Base, metaclass=M):\n    @R.function\n"
      "    def f[n, m](x):\n        def g():\n            pass\n        return g\n");
  const Stmt& c = *m.body[0];
  EXPECT_EQ(c.kind, StmtKind::kClassDef);
  EXPECT_EQ(c.bases.size(), 1u);
  EXPECT_EQ(c.keywords[0].arg, "metaclass");
  const Stmt& f = *c.body[0];
  EXPECT_EQ(f.type_params, (std::vector<std::string>{"n", "m"}));
  EXPECT_EQ(f.body[0]->kind, StmtKind::kFunctionDef);
  EXPECT_EQ(f.body[0]->body[0]->kind, StmtKind::kPass);
}

TEST(ReaderTest, ControlFlow) {
  Module m = ReadOk(
      "for i, j in T.grid(4, 4):\n    if i < j:\n        break\n    elif i == j:\n"
      "        continue\n    else:\n        pass\nelse:\n    pass\n"
      "while x:\n    x -= 1\nwith T.sblock(\"C\") as b, T.init():\n    pass\n"
      "assert c, (\"ValueError\", [\"msg\"])\n");
  const Stmt& f = *m.body[0];
  EXPECT_EQ(f.kind, StmtKind::kFor);
  EXPECT_EQ(f.target->kind, ExprKind::kTuple);
  EXPECT_FALSE(f.target->parenthesized);
  const Stmt& s_if = *f.body[0];
  ASSERT_EQ(s_if.orelse.size(), 1u);
  EXPECT_EQ(s_if.orelse[0]->kind, StmtKind::kIf);
  EXPECT_EQ(s_if.orelse[0]->pos.line, 4);
  EXPECT_EQ(s_if.orelse[0]->orelse[0]->kind, StmtKind::kPass);
  EXPECT_EQ(f.orelse.size(), 1u);
  EXPECT_EQ(m.body[1]->kind, StmtKind::kWhile);
  EXPECT_EQ(m.body[1]->body[0]->kind, StmtKind::kAugAssign);
  EXPECT_EQ(m.body[1]->body[0]->op, "-");
  const Stmt& w = *m.body[2];
  ASSERT_EQ(w.items.size(), 2u);
  EXPECT_EQ(w.items[0].optional_vars->name, "b");
  EXPECT_EQ(w.items[1].optional_vars, nullptr);
  const Stmt& a = *m.body[3];
  EXPECT_EQ(a.kind, StmtKind::kAssert);
  EXPECT_EQ(a.msg->kind, ExprKind::kTuple);
  EXPECT_TRUE(a.msg->parenthesized);
}

TEST(ReaderTest, Assignments) {
  Module m = ReadOk(
      "a = b = 1\nvi, vj = T.axis.remap(\"SS\", [i, j])\nx: T.int32\n"
      "y: T.let[T.int32] = v\nA[i] += 2\ndel a, b[0]\nimport a.b as c, d\n"
      "from ..x.y import (p as q, r)\nfrom . import z\nglobal g, h\n*s, t = u\n");
  EXPECT_EQ(m.body[0]->targets.size(), 2u);
  EXPECT_EQ(m.body[1]->targets[0]->elts.size(), 2u);
  EXPECT_EQ(m.body[2]->kind, StmtKind::kAnnAssign);
  EXPECT_EQ(m.body[2]->value, nullptr);
  EXPECT_EQ(m.body[3]->annotation->kind, ExprKind::kSubscript);
  EXPECT_EQ(m.body[3]->value->name, "v");
  EXPECT_EQ(m.body[4]->target->kind, ExprKind::kSubscript);
  EXPECT_EQ(m.body[5]->targets.size(), 2u);
  EXPECT_EQ(m.body[6]->names[0].name, "a.b");
  EXPECT_EQ(m.body[6]->names[0].asname, "c");
  EXPECT_EQ(m.body[7]->level, 2);
  EXPECT_EQ(m.body[7]->module, "x.y");
  EXPECT_EQ(m.body[7]->names[1].name, "r");
  EXPECT_EQ(m.body[8]->level, 1);
  EXPECT_EQ(m.body[8]->module, "");
  EXPECT_EQ(m.body[9]->names.size(), 2u);
  EXPECT_EQ(m.body[10]->targets[0]->elts[0]->kind, ExprKind::kStarred);
}

TEST(ReaderTest, SimpleStatementsOnOneLine) {
  Module m = ReadOk("if x: a = 1; b = 2\nc = 3;\n");
  EXPECT_EQ(m.body[0]->body.size(), 2u);
  EXPECT_EQ(m.body.size(), 2u);
}

TEST(ReaderTest, Precedence) {
  EXPECT_EQ(Shape("a + b * c"), "a + b * c");
  EXPECT_EQ(Shape("(a + b) * c"), "(a + b) * c");
  EXPECT_EQ(Shape("a - (b - c)"), "a - (b - c)");
  EXPECT_EQ(Shape("a - b - c"), "a - b - c");
  EXPECT_EQ(Shape("-a ** -b"), "-a ** -b");
  EXPECT_EQ(Shape("(-a) ** b"), "(-a) ** b");
  EXPECT_EQ(Shape("a ** b ** c"), "a ** b ** c");
  EXPECT_EQ(Shape("(a ** b) ** c"), "(a ** b) ** c");
  EXPECT_EQ(Shape("a | b ^ c & d << e"), "a | b ^ c & d << e");
  EXPECT_EQ(Shape("(a | b) & c"), "(a | b) & c");
  EXPECT_EQ(Shape("not a and b or c"), "not a and b or c");
  EXPECT_EQ(Shape("not (a and b)"), "not (a and b)");
  EXPECT_EQ(Shape("a < b <= c is not d not in e in f is g"),
            "a < b <= c is not d not in e in f is g");
  EXPECT_EQ(Shape("x if c else y if d else z"), "x if c else y if d else z");
  EXPECT_EQ(Shape("(x if c else y) if d else z"), "(x if c else y) if d else z");
  EXPECT_EQ(Shape("lambda a, b: a + b"), "lambda a, b: a + b");
  EXPECT_EQ(Shape("a @ b // c % d / e"), "a @ b // c % d / e");
  EXPECT_EQ(Shape("~+-x"), "~+-x");
  Module m = ReadOk("x = 1 < 2 < 3\n");
  EXPECT_EQ(ValueOf(m).ops.size(), 2u);
}

TEST(ReaderTest, SubscriptsCallsAndDisplays) {
  EXPECT_EQ(Shape("A[0:16, i*16:i*16+16]"), "A[0:16, i * 16:i * 16 + 16]");
  EXPECT_EQ(Shape("A[::2]"), "A[::2]");
  EXPECT_EQ(Shape("A[i, :]"), "A[i, :]");
  EXPECT_EQ(Shape("A[1:]"), "A[1:]");
  EXPECT_EQ(Shape("A[(i, j)]"), "A[i, j]");
  EXPECT_EQ(Shape("A[i,]"), "A[i,]");
  EXPECT_EQ(Shape("f(a, *b, k=v, **kw)"), "f(a, *b, k=v, **kw)");
  EXPECT_EQ(Shape("f(x for x in y)"), "f(x for x in y)");
  EXPECT_EQ(Shape("f((x for x in y), 1)"), "f((x for x in y), 1)");
  EXPECT_EQ(Shape("a.b.c(d)[e]"), "a.b.c(d)[e]");
  EXPECT_EQ(Shape("[1, 2,]"), "[1, 2]");
  EXPECT_EQ(Shape("(1,)"), "(1,)");
  EXPECT_EQ(Shape("()"), "()");
  EXPECT_EQ(Shape("{\"a\": 1, 'b': [2]}"), "{\"a\": 1, \"b\": [2]}");
  EXPECT_EQ(Shape("{1, 2}"), "{1, 2}");
  EXPECT_EQ(Shape("{}"), "{}");
  EXPECT_EQ(Shape("[x * 2 for x in y if x if z for w in v]"),
            "[x * 2 for x in y if x if z for w in v]");
  EXPECT_EQ(Shape("{k: v for k, v in d}"), "{k: v for k, v in d}");
  EXPECT_EQ(Shape("{x for x in s}"), "{x for x in s}");
  EXPECT_EQ(Shape("(x for x in s)"), "(x for x in s)");
  EXPECT_EQ(Shape("[*a, *b]"), "[*a, *b]");
  EXPECT_EQ(Shape("..."), "...");
  Module m = ReadOk("x = 1, 2\n");
  EXPECT_EQ(ValueOf(m).kind, ExprKind::kTuple);
  EXPECT_FALSE(ValueOf(m).parenthesized);
}

TEST(ReaderTest, Numbers) {
  Module m = ReadOk(
      "x = 0x1F, 0o17, 0b101, 1_000, 1e-5, .5, 5., 1E+3, 9223372036854775807, "
      "9223372036854775808, 0xFFFFFFFFFFFFFFFF\n");
  const auto& e = ValueOf(m).elts;
  EXPECT_EQ(e[0]->int_value, 31);
  EXPECT_EQ(e[1]->int_value, 15);
  EXPECT_EQ(e[2]->int_value, 5);
  EXPECT_EQ(e[3]->int_value, 1000);
  EXPECT_EQ(e[4]->const_kind, Expr::ConstKind::kFloat);
  EXPECT_DOUBLE_EQ(e[4]->float_value, 1e-5);
  EXPECT_DOUBLE_EQ(e[5]->float_value, 0.5);
  EXPECT_DOUBLE_EQ(e[6]->float_value, 5.0);
  EXPECT_DOUBLE_EQ(e[7]->float_value, 1000.0);
  EXPECT_EQ(e[8]->int_value, INT64_MAX);
  EXPECT_FALSE(e[8]->int_overflow);
  EXPECT_TRUE(e[9]->int_overflow);
  EXPECT_EQ(e[9]->int_text, "9223372036854775808");
  EXPECT_TRUE(e[10]->int_overflow);
  EXPECT_EQ(e[10]->int_text, "0xFFFFFFFFFFFFFFFF");
}

TEST(ReaderTest, StringsConcatenateAndDecode) {
  Module m = ReadOk("x = 'a' \"b\" '''c'''\ny = r'\\d' 'e\\u00e9'\n");
  EXPECT_EQ(ValueOf(m).str_value, "abc");
  EXPECT_EQ(ValueOf(m, 1).str_value, "\\de\xC3\xA9");
  EXPECT_EQ(ValueOf(m).pos.end_col, 20);
}

TEST(ReaderTest, FStrings) {
  Module m = ReadOk("x = 'p' f'a{b!r}c{d + 1:>{w}}' 'q'\n");
  const Expr& j = ValueOf(m);
  ASSERT_EQ(j.kind, ExprKind::kJoinedStr);
  ASSERT_EQ(j.values.size(), 5u);
  EXPECT_EQ(j.values[0]->str_value, "pa");
  const Expr& b = *j.values[1];
  EXPECT_EQ(b.kind, ExprKind::kFormattedValue);
  EXPECT_EQ(b.name, "r");
  EXPECT_EQ(b.value->name, "b");
  EXPECT_EQ(b.value->pos.col, 13);  // positions point into the source
  EXPECT_EQ(j.values[2]->str_value, "c");
  const Expr& d = *j.values[3];
  EXPECT_EQ(d.value->kind, ExprKind::kBinOp);
  EXPECT_EQ(d.value->pos.col, 19);
  ASSERT_TRUE(d.format_spec);
  ASSERT_EQ(d.format_spec->values.size(), 2u);
  EXPECT_EQ(d.format_spec->values[0]->str_value, ">");
  EXPECT_EQ(d.format_spec->values[1]->value->name, "w");
  EXPECT_EQ(j.values[4]->str_value, "q");
  // Without a field an f-string is a plain str; `{x=}` is "x=" and repr(x).
  EXPECT_EQ(ValueOf(ReadOk("x = f'a{{}}' 'b'\n")).str_value, "a{}b");
  EXPECT_EQ(Shape("f'{x = }'"), "f\"x = {x!r}\"");
  // The writer's output reads back to the same tree, nested strings and braces included.
  for (const char* src : {"f'{a[\"k\"]!s}{{x}}\\n{ {1: 2}[1]}'", "f\"{(lambda v: v)(1)}\"",
                          "f'{f\"{x}\"}{y:{z}.{p}}'", "f'{a, b}{c if d else \"e\"}'"}) {
    Module a = ReadOk(std::string("x = ") + src + "\n");
    std::string written = Write(a);
    Module b2 = ReadOk(written);
    std::string why;
    EXPECT_TRUE(StructurallyEqual(a, b2, &why)) << src << " -> " << written << ": " << why;
    EXPECT_EQ(Write(b2), written);
  }
}

TEST(ReaderTest, Positions) {
  Module m = ReadOk("def f():\n    y = a.b(c)[d] + \"\xC3\xA9\" * 2\n");
  const Stmt& s = *m.body[0]->body[0];
  EXPECT_EQ(s.pos.line, 2);
  EXPECT_EQ(s.pos.col, 5);
  EXPECT_EQ(s.pos.end_col, 28);
  const Expr& v = *s.value;  // (a.b(c)[d]) + ("é" * 2)
  EXPECT_EQ(v.pos.col, 9);
  EXPECT_EQ(v.pos.end_col, 28);
  const Expr& sub = *v.left;
  EXPECT_EQ(sub.pos.col, 9);
  EXPECT_EQ(sub.pos.end_col, 18);
  EXPECT_EQ(sub.value->func->pos.end_col, 12);  // a.b
  EXPECT_EQ(v.right->left->pos.col, 21);
  EXPECT_EQ(v.right->left->pos.end_col, 24);
  EXPECT_EQ(v.right->right->pos.col, 27);
  Module k = ReadOk("f(key=1)\n");
  EXPECT_EQ(ValueOf(k).keywords[0].pos.col, 3);
  EXPECT_EQ(ValueOf(k).keywords[0].pos.end_col, 8);
}

TEST(ReaderTest, Comments) {
  Module m = ReadOk(
      "# header 1\n#header 2\n\n@T.prim_func\ndef f():\n    x = 1\n"
      "    # with T.sblock(\"root\"):\n    for i in range(2):  # eol\n        pass\n"
      "    # end of f\n# before g\ng = 1\n# trailing\n");
  ASSERT_EQ(m.leading_comments.size(), 2u);
  EXPECT_EQ(m.leading_comments[0].text, "header 1");
  EXPECT_EQ(m.leading_comments[1].text, "header 2");
  const Stmt& loop = *m.body[0]->body[1];
  ASSERT_EQ(loop.leading_comments.size(), 1u);
  EXPECT_EQ(loop.leading_comments[0].text, "with T.sblock(\"root\"):");
  EXPECT_EQ(loop.leading_comments[0].pos.line, 7);
  ASSERT_EQ(m.body[1]->leading_comments.size(), 2u);
  EXPECT_EQ(m.body[1]->leading_comments[0].text, "end of f");
  ASSERT_EQ(m.trailing_comments.size(), 1u);
  EXPECT_EQ(m.trailing_comments[0].text, "trailing");
  Module only = ReadOk("# just a comment\n");
  EXPECT_TRUE(only.body.empty());
  EXPECT_EQ(only.leading_comments.size(), 1u);
}

TEST(ReaderTest, LayoutVariants) {
  EXPECT_EQ(ReadOk("x = 1").body.size(), 1u);
  EXPECT_EQ(ReadOk("if a:\r\n    b = 1\r\n").body[0]->body.size(), 1u);
  EXPECT_EQ(ReadOk("if a:\n\tb = 1\n\tc = 2\n").body[0]->body.size(), 2u);
  EXPECT_EQ(ReadOk("x = f(1,\n  2) + \\\n  3\n").body.size(), 1u);
  EXPECT_TRUE(ReadOk("").body.empty());
  EXPECT_TRUE(ReadOk("\n\n   \n").body.empty());
}

TEST(ReaderTest, ErrorsMatchCPython) {
  // Positions and messages as reported by CPython 3.11's ast.parse.
  EXPECT_EQ(ErrorOf("for i in range(8)\n    x = 1\n"), "1:18: expected ':'");
  EXPECT_EQ(ErrorOf("for i in range(8)  # c\n  pass\n"), "1:20: expected ':'");
  EXPECT_EQ(ErrorOf("if x\n  pass\n"), "1:5: expected ':'");
  EXPECT_EQ(ErrorOf("def f()\n  pass\n"), "1:8: expected ':'");
  EXPECT_EQ(ErrorOf("class A\n  pass\n"), "1:8: expected ':'");
  EXPECT_EQ(ErrorOf("with a as b\n  pass\n"), "1:12: expected ':'");
  EXPECT_EQ(ErrorOf("x = = 1\n"), "1:5: invalid syntax");
  EXPECT_EQ(ErrorOf("x = 1 +\n"), "1:8: invalid syntax");
  EXPECT_EQ(ErrorOf("def f(:\n  pass\n"), "1:7: invalid syntax");
  EXPECT_EQ(ErrorOf("x = 5 y = 3\n"), "1:7: invalid syntax");
  EXPECT_EQ(ErrorOf("else:\n  pass\n"), "1:1: invalid syntax");
  EXPECT_EQ(ErrorOf("x = (1, 2\ny = 3\n"), "1:5: '(' was never closed");
  EXPECT_EQ(ErrorOf("x = = 1\ny = 'abc\n"), "2:5: unterminated string literal (detected at line 2)");
  EXPECT_EQ(ErrorOf("x = 1)\n"), "1:6: unmatched ')'");
  EXPECT_EQ(ErrorOf("x = 1abc\n"), "1:5: invalid decimal literal");
  EXPECT_EQ(ErrorOf("for i in x:\nx = 1\n"),
            "2:1: expected an indented block after 'for' statement on line 1");
  EXPECT_EQ(ErrorOf("if x:\n"), "1:6: expected an indented block after 'if' statement on line 1");
  EXPECT_EQ(ErrorOf("def f():\n\nx = 1\n"),
            "3:1: expected an indented block after function definition on line 1");
  EXPECT_EQ(ErrorOf("f(a for a in b, c)\n"), "1:3: Generator expression must be parenthesized");
  EXPECT_EQ(ErrorOf("f(a=1, b)\n"), "1:8: positional argument follows keyword argument");
  EXPECT_EQ(ErrorOf("f(**k, a)\n"), "1:8: positional argument follows keyword argument unpacking");
  EXPECT_EQ(ErrorOf("f(**k, *a)\n"),
            "1:8: iterable argument unpacking follows keyword argument unpacking");
  EXPECT_EQ(ErrorOf("x + 1 = 2\n"),
            "1:1: cannot assign to expression here. Maybe you meant '==' instead of '='?");
  EXPECT_EQ(ErrorOf("f() = 2\n"),
            "1:1: cannot assign to function call here. Maybe you meant '==' instead of '='?");
  EXPECT_EQ(ErrorOf("1 = 2\n"),
            "1:1: cannot assign to literal here. Maybe you meant '==' instead of '='?");
  EXPECT_EQ(ErrorOf("del f()\n"), "1:5: cannot delete function call");
  EXPECT_EQ(ErrorOf("a, b += 1\n"), "1:1: 'tuple' is an illegal expression for augmented assignment");
  EXPECT_EQ(ErrorOf("x: int, y = 1\n"), "1:7: invalid syntax");
  EXPECT_EQ(ErrorOf("x = (1 2)\n"), "1:6: invalid syntax. Perhaps you forgot a comma?");
  EXPECT_EQ(ErrorOf("f(1 2)\n"), "1:3: invalid syntax. Perhaps you forgot a comma?");
  EXPECT_EQ(ErrorOf("def f(a=1, b):\n  pass\n"), "1:12: non-default argument follows default argument");
  EXPECT_EQ(ErrorOf("def f(*, **k): pass\n"), "1:7: named arguments must follow bare *");
  EXPECT_EQ(ErrorOf("x = a if b\n"), "1:5: expected 'else' after 'if' expression");
  EXPECT_EQ(ErrorOf("x = 1 if 2 else\n"), "1:16: invalid syntax");
  EXPECT_EQ(ErrorOf("print 'x'\n"), "1:1: Missing parentheses in call to 'print'. Did you mean print(...)?");
  EXPECT_EQ(ErrorOf("assert\n"), "1:7: invalid syntax");
  // Our own wording (CPython points at the end of the line for these).
  EXPECT_EQ(ErrorOf("  x = 1\n"), "1:3: unexpected indent");
  EXPECT_EQ(ErrorOf("x = 1\n  y = 2\nz='a\n"), "2:3: unexpected indent");
  EXPECT_EQ(ErrorOf("if x:\n    a = 1\n  b = 2\n"),
            "3:3: unindent does not match any outer indentation level");
  EXPECT_EQ(ErrorOf("x = f'{a b}'\n"), "1:8: invalid syntax. Perhaps you forgot a comma?");
  EXPECT_EQ(ErrorOf("x = f\"\"\"\n{a +\n}\"\"\"\n"), "3:1: invalid syntax");
  EXPECT_EQ(ErrorOf("try:\n  pass\n"), "1:1: 'try' is not supported in TVMScript");
  EXPECT_EQ(ErrorOf("x = (y := 1)\n"), "1:8: assignment expressions (:=) are not supported");
}

// An @I.pyfunc method's body is any Python (try, raise, ...): kept as text, not read.
TEST(ReaderTest, PyFuncBodyIsKeptAsText) {
  Module m = ReadOk(
      "class M(BasePyModule):\n"
      "    @I.pyfunc\n"
      "    def f(self, x):\n"
      "        try:\n"
      "            return x\n"
      "        \n"
      "        # inside\n"
      "        except E:\n"
      "            raise\n"
      "    # after\n"
      "    @R.function\n"
      "    def g():\n"
      "        return 1\n");
  ASSERT_EQ(m.body.size(), 1u);
  const Stmt& cls = *m.body[0];
  ASSERT_EQ(cls.body.size(), 2u);
  const Stmt& f = *cls.body[0];
  EXPECT_EQ(f.name, "f");
  EXPECT_EQ(f.args.size(), 2u);
  ASSERT_EQ(f.decorators.size(), 1u);
  EXPECT_TRUE(IsPyFuncDecorator(*f.decorators[0]));
  EXPECT_TRUE(f.body.empty());
  EXPECT_EQ(f.source,
            "@I.pyfunc\ndef f(self, x):\n    try:\n        return x\n\n    # inside\n    except E:\n        raise\n");
  EXPECT_EQ(f.pos.end_line, 9);
  // The comment after the body stays with the next statement; the one inside went with the text.
  const Stmt& g = *cls.body[1];
  ASSERT_EQ(g.leading_comments.size(), 1u);
  EXPECT_EQ(g.leading_comments[0].text, "after");
  EXPECT_TRUE(g.source.empty());
  EXPECT_EQ(g.body.size(), 1u);
  // A line of a multi-line string indented less than the definition keeps what it has.
  Module doc = ReadOk("class M(BasePyModule):\n    @I.pyfunc\n    def f(self):\n        return '''a\n  b'''\n");
  EXPECT_EQ(doc.body[0]->body[0]->source, "@I.pyfunc\ndef f(self):\n    return '''a\nb'''\n");
  // A bracket left open in the skipped body is the tokenizer's error, not a hang.
  EXPECT_NE(ErrorOf("class M(BasePyModule):\n    @I.pyfunc\n    def f(self):\n        return g(1\n\n    def h():\n        pass\n")
                .find("was never closed"),
            std::string::npos);
}

TEST(ReaderTest, DeepNestingIsAnErrorNotACrash) {
  EXPECT_EQ(ErrorOf(std::string(10000, '(')), "1:201: too deeply nested");
  EXPECT_EQ(ErrorOf("x = " + std::string(10000, '-') + "1\n"), "1:204: too deeply nested");
  std::string nots = "x = ";
  for (int i = 0; i < 5000; ++i) nots += "not ";
  EXPECT_NE(ErrorOf(nots + "y\n").find("too deeply nested"), std::string::npos);
  std::string lambdas = "x = ";
  for (int i = 0; i < 5000; ++i) lambdas += "lambda: ";
  EXPECT_NE(ErrorOf(lambdas + "y\n").find("too deeply nested"), std::string::npos);
  std::string power = "x = 2";
  for (int i = 0; i < 5000; ++i) power += " ** 2";
  EXPECT_NE(ErrorOf(power + "\n").find("too deeply nested"), std::string::npos);
  std::string blocks;
  for (int i = 0; i < 300; ++i) blocks += std::string(i, ' ') + "if x:\n";
  blocks += std::string(300, ' ') + "pass\n";
  EXPECT_NE(ErrorOf(blocks).find("too deeply nested"), std::string::npos);
  ReadOptions small;
  small.max_depth = 3;
  EXPECT_NE(ErrorOf("x = ((((1))))\n", small).find("too deeply nested"), std::string::npos);
}

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::filesystem::path> CorpusFiles(const std::string& sub) {
  absl::StatusOr<std::string> shared = kiln::testing::SharedDir();
  EXPECT_TRUE(shared.ok()) << shared.status();
  std::vector<std::filesystem::path> files;
  if (!shared.ok()) return files;
  for (const auto& e : std::filesystem::directory_iterator(*shared + "/corpus/" + sub)) {
    if (e.path().extension() == ".py") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ReaderTest, InvalidCorpusPythonSyntaxError) {
  auto files = CorpusFiles("invalid");
  ASSERT_FALSE(files.empty());
  for (const auto& f : files) {
    std::string src = Slurp(f);
    if (f.filename().string().rfind("001_", 0) == 0) {
      // "# expect-error: 7:22: expected ':'"
      std::string header = src.substr(0, src.find('\n'));
      std::string want = header.substr(std::string("# expect-error: ").size());
      EXPECT_EQ(ErrorOf(src), want);
    } else {
      // The other invalid programs are valid Python; their errors are semantic.
      ReadOk(src);
    }
  }
}

TEST(ReaderTest, CorpusRoundTripAndFixedPoint) {
  std::vector<std::filesystem::path> files;
  for (const char* sub : {"tir", "relax"}) {
    for (auto& f : CorpusFiles(sub)) files.push_back(f);
  }
  ASSERT_GT(files.size(), 100u);
  size_t bytes = 0;
  std::vector<std::string> sources;
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    std::string src = Slurp(f);
    bytes += src.size();
    absl::StatusOr<Module> m1 = Read(src, f.string());
    ASSERT_TRUE(m1.ok()) << m1.status();
    sources.push_back(std::move(src));
    std::string text = Write(*m1);
    absl::StatusOr<Module> m2 = Read(text, "written.py");
    ASSERT_TRUE(m2.ok()) << m2.status() << "\n" << text;
    std::string why;
    EXPECT_TRUE(StructurallyEqual(*m1, *m2, &why)) << why << "\n" << text;
    EXPECT_EQ(Write(*m2), text);
  }
  // Throughput, on a second (warm) pass.
  auto t0 = std::chrono::steady_clock::now();
  for (const std::string& src : sources) ASSERT_TRUE(Read(src, "corpus.py").ok());
  double read_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("read %zu corpus files (%zu bytes) in %.2f ms\n", files.size(), bytes,
              read_seconds * 1e3);
  // Well under 50 ms for the whole corpus (generous bound for loaded CI machines).
  EXPECT_LT(read_seconds, 0.5) << bytes << " bytes";
}

}  // namespace
}  // namespace kiln::script::doc
