// Deeply nested and very long TVMScript must give an error (or, where the program is legal and the
// nesting within ParseOptions::max_depth, an IR) -- never a stack overflow. Run under ASan+UBSan,
// whose larger frames make a recursion that merely fits in an ordinary build overflow here, and
// through print -> parse for what is accepted, since the printer, the verifiers, structural
// equality and the IR destructors recurse over the same trees.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/structural.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::script {
namespace {

std::string Repeat(absl::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * n);
  for (int i = 0; i < n; ++i) out.append(s.data(), s.size());
  return out;
}

// A PrimFunc whose body is `stmt` (one line, indented by the caller's text).
std::string InPrimFunc(absl::string_view body) {
  return absl::StrCat("@T.prim_func\ndef f(A: T.Buffer((16,), \"int32\"), n: T.int32):\n", body);
}

// Parses `source`; it must fail with "too deeply nested" at a position in the file.
void ExpectTooDeep(const std::string& source) {
  absl::StatusOr<ir::ObjectRef> r = ParseScript(source, "deep.py");
  ASSERT_FALSE(r.ok()) << "accepted " << source.size() << " bytes of nesting";
  EXPECT_TRUE(absl::StartsWith(r.status().message(), "deep.py:")) << r.status().message().substr(0, 300);
  EXPECT_NE(r.status().message().find("too deeply nested"), absl::string_view::npos)
      << r.status().message().substr(0, 300);
}

// Parses `source`; an error must be located, an accepted program must round-trip.
void ExpectErrorOrRoundTrip(const std::string& source) {
  absl::StatusOr<ir::ObjectRef> r = ParseScript(source, "deep.py");
  if (!r.ok()) {
    EXPECT_TRUE(absl::StartsWith(r.status().message(), "deep.py:")) << r.status().message().substr(0, 300);
    return;
  }
  std::string text = printer::Print(*r);
  ParseOptions slack;
  slack.max_depth += 8;
  absl::StatusOr<ir::ObjectRef> again = ParseScript(text, "printed.py", nullptr, slack);
  ASSERT_TRUE(again.ok()) << again.status().message().substr(0, 300);
  EXPECT_TRUE(ir::StructuralEqual(*r, *again));
}

TEST(ScriptDepthTest, HundredThousandParentheses) {
  ExpectTooDeep("x = " + Repeat("(", 100000) + "1" + Repeat(")", 100000) + "\n");
  ExpectTooDeep(InPrimFunc("    A[0] = " + Repeat("(", 100000) + "1" + Repeat(")", 100000) + "\n"));
  ExpectTooDeep(Repeat("(", 100000));  // never closed
  ExpectTooDeep(InPrimFunc("    A[0] = " + Repeat("f(", 100000) + "1" + Repeat(")", 100000) + "\n"));
}

TEST(ScriptDepthTest, NestedListsAndTuples) {
  ExpectTooDeep(InPrimFunc("    T.evaluate(" + Repeat("[", 10000) + "1" + Repeat("]", 10000) + ")\n"));
  ExpectTooDeep("@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n    return " + Repeat("(", 10000) + "x," +
                Repeat("),", 9999) + ")\n");
  ExpectTooDeep("x = " + Repeat("{1: ", 10000) + "1" + Repeat("}", 10000) + "\n");
}

TEST(ScriptDepthTest, NestedStatements) {
  // One space per level keeps 10000 levels at ~60 MB of text.
  std::string ifs, fors;
  for (int d = 1; d <= 10000; ++d) {
    absl::StrAppend(&ifs, std::string(d, ' '), "if n > ", d, ":\n");
    absl::StrAppend(&fors, std::string(d, ' '), "for i", d, " in range(2):\n");
  }
  ExpectTooDeep(InPrimFunc(ifs + std::string(10001, ' ') + "A[0] = 1\n"));
  ExpectTooDeep(InPrimFunc(fors + std::string(10001, ' ') + "A[0] = 1\n"));
  std::string withs;
  for (int d = 1; d <= 10000; ++d) absl::StrAppend(&withs, std::string(d, ' '), "with T.sblock(\"b", d, "\"):\n");
  ExpectTooDeep("@T.prim_func(s_tir=True)\ndef f(A: T.Buffer((16,), \"int32\")):\n" + withs +
                std::string(10001, ' ') + "A[0] = 1\n");
}

TEST(ScriptDepthTest, PrefixAndRightAssociativeChains) {
  for (const char* unit : {"-", "~", "not ", "2 ** ", "n if n else ", "lambda: "}) {
    SCOPED_TRACE(unit);
    ExpectTooDeep(InPrimFunc("    A[0] = " + Repeat(unit, 100000) + "1\n"));
  }
}

// Left-associative chains are loops in a recursive-descent reader, but each link is one more level
// of the tree everything downstream recurses over, so a long chain is too deep as well; a chain
// well within ParseOptions::max_depth is accepted.
TEST(ScriptDepthTest, LeftAssociativeChains) {
  for (const char* unit : {" + 1", " * n", " < n", " and n > 0", " | 1", "[0]", ".x", "()"}) {
    SCOPED_TRACE(unit);
    ExpectTooDeep(InPrimFunc("    A[0] = n" + Repeat(unit, 100000) + "\n"));
    ExpectTooDeep("x = n" + Repeat(unit, 100000) + "\n");
  }
  std::string sum = InPrimFunc("    A[0] = n" + Repeat(" + 1", 150) + "\n");
  ASSERT_TRUE(ParseScript(sum, "sum.py").ok());
  ExpectErrorOrRoundTrip(sum);
}

// Within the limit, the same shapes parse and round-trip.
TEST(ScriptDepthTest, ModerateNestingIsAccepted) {
  std::string fors;
  for (int d = 1; d <= 40; ++d) absl::StrAppend(&fors, std::string(4 * d, ' '), "for i", d, " in range(1):\n");
  std::string src = InPrimFunc(fors + std::string(4 * 41, ' ') + "A[0] = A[0] + " + Repeat("(", 40) + "1" +
                               Repeat(")", 40) + Repeat(" + 1", 40) + "\n");
  absl::StatusOr<ir::ObjectRef> r = ParseScript(src, "ok.py");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectErrorOrRoundTrip(src);
}

std::string LetChain(int n) {
  std::string lets;
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&lets, "    x", i, ": T.let[T.int32] = ", i == 0 ? std::string("n") : absl::StrCat("x", i - 1, " + 1"), "\n");
  }
  return InPrimFunc(absl::StrCat(lets, "    A[0] = x", n - 1, "\n"));
}

// Long but flat text: each TIR let binding scopes the rest of the body, so the IR is as deep as the
// statement count. Up to ParseOptions::max_scope_depth it parses, prints and round-trips (under
// ASan, whose frames are several times larger than an optimized build's); beyond, one error.
TEST(ScriptDepthTest, LetChains) {
  const int limit = ParseOptions().max_scope_depth;
  ExpectErrorOrRoundTrip(LetChain(limit - 2));  // the function frame and the last store take two
  ASSERT_TRUE(ParseScript(LetChain(limit - 2), "lets.py").ok());
  absl::StatusOr<ir::ObjectRef> r = ParseScript(LetChain(20000), "lets.py");
  ASSERT_FALSE(r.ok());
  // The first statement past the limit (line 3 is the first let) is reported, once.
  const std::string want = absl::StrCat("lets.py:", 3 + limit, ":5: error: too deeply nested");
  EXPECT_TRUE(absl::StartsWith(r.status().message(), want)) << r.status().message().substr(0, 300);
  EXPECT_EQ(r.status().message().find("error:", want.size()), absl::string_view::npos);
}

// Many flat statements that do not nest: accepted whatever their number.
TEST(ScriptDepthTest, ManyFlatStatements) {
  std::string stores;
  for (int i = 0; i < 5000; ++i) absl::StrAppend(&stores, "    A[", i % 16, "] = A[", (i + 1) % 16, "] + 1\n");
  ExpectErrorOrRoundTrip(InPrimFunc(stores));
  ASSERT_TRUE(ParseScript(InPrimFunc(stores), "flat.py").ok());
  std::string bindings = "@R.function\ndef f(x: R.Tensor((4,), \"float32\")):\n    lv0 = R.add(x, x)\n";
  for (int i = 1; i < 5000; ++i) absl::StrAppend(&bindings, "    lv", i, " = R.add(lv", i - 1, ", x)\n");
  ExpectErrorOrRoundTrip(bindings + "    return lv4999\n");
  ASSERT_TRUE(ParseScript(bindings + "    return lv4999\n", "flat.py").ok());
}

}  // namespace
}  // namespace kiln::script
