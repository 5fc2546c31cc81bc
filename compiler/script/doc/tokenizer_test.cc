// Tests for the Doc tokenizer: token kinds, layout tokens, positions, literals, comments.
#include "compiler/script/doc/tokenizer.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace kiln::script::doc::internal {
namespace {

// Compact rendering: NAME:x NUM:1 STR:"v" OP:+ NL IN DE END.
std::string Kinds(const std::string& src) {
  TokenStream ts = Tokenize(src, 100);
  std::string out;
  for (const Token& t : ts.tokens) {
    if (!out.empty()) out += ' ';
    switch (t.kind) {
      case TokenKind::kName: out += "NAME:" + std::string(t.text); break;
      case TokenKind::kNumber: out += "NUM:" + std::string(t.text); break;
      case TokenKind::kString: out += "STR:" + t.value; break;
      case TokenKind::kOp: out += "OP:" + std::string(t.text); break;
      case TokenKind::kNewline: out += "NL"; break;
      case TokenKind::kIndent: out += "IN"; break;
      case TokenKind::kDedent: out += "DE"; break;
      case TokenKind::kEnd: out += "END"; break;
      case TokenKind::kError: out += "ERR:" + ts.error.message; break;
    }
  }
  return out;
}

TEST(TokenizerTest, IndentDedentAndBlankLines) {
  EXPECT_EQ(Kinds("if a:\n\n    b\n  \n    c\nd\n"),
            "NAME:if NAME:a OP:: NL IN NAME:b NL NAME:c NL DE NAME:d NL END");
  EXPECT_EQ(Kinds("if a:\n    if b:\n        c\n"),
            "NAME:if NAME:a OP:: NL IN NAME:if NAME:b OP:: NL IN NAME:c NL DE DE END");
}

TEST(TokenizerTest, MissingFinalNewlineAndCrlf) {
  EXPECT_EQ(Kinds("x = 1"), "NAME:x OP:= NUM:1 NL END");
  EXPECT_EQ(Kinds("if a:\r\n    b\r\nc\r\n"), "NAME:if NAME:a OP:: NL IN NAME:b NL DE NAME:c NL END");
}

TEST(TokenizerTest, ImplicitAndExplicitContinuation) {
  EXPECT_EQ(Kinds("f(1,\n      2)\n"), "NAME:f OP:( NUM:1 OP:, NUM:2 OP:) NL END");
  EXPECT_EQ(Kinds("x = 1 + \\\n    2\n"), "NAME:x OP:= NUM:1 OP:+ NUM:2 NL END");
}

TEST(TokenizerTest, Operators) {
  EXPECT_EQ(Kinds("a **= b // c -> d != e ... f @ g\n"),
            "NAME:a OP:**= NAME:b OP:// NAME:c OP:-> NAME:d OP:!= NAME:e OP:... NAME:f OP:@ "
            "NAME:g NL END");
}

// Every operator spelling is read whole (longest match) and carries its own Op.
TEST(TokenizerTest, OperatorIds) {
  const std::pair<const char*, Op> kOps[] = {
      {"(", Op::kLParen}, {")", Op::kRParen}, {"[", Op::kLBracket}, {"]", Op::kRBracket},
      {"{", Op::kLBrace}, {"}", Op::kRBrace}, {",", Op::kComma}, {":", Op::kColon},
      {".", Op::kDot}, {";", Op::kSemicolon}, {"@", Op::kAt}, {"=", Op::kAssign},
      {"->", Op::kArrow}, {":=", Op::kWalrus}, {"...", Op::kEllipsis}, {"+", Op::kPlus},
      {"-", Op::kMinus}, {"*", Op::kStar}, {"/", Op::kSlash}, {"%", Op::kPercent},
      {"&", Op::kAmp}, {"|", Op::kPipe}, {"^", Op::kCaret}, {"~", Op::kTilde},
      {"<<", Op::kLShift}, {">>", Op::kRShift}, {"**", Op::kPow}, {"//", Op::kFloorDiv},
      {"<", Op::kLt}, {">", Op::kGt}, {"<=", Op::kLe}, {">=", Op::kGe}, {"==", Op::kEq},
      {"!=", Op::kNe}, {"+=", Op::kPlusAssign}, {"-=", Op::kMinusAssign},
      {"*=", Op::kStarAssign}, {"/=", Op::kSlashAssign}, {"%=", Op::kPercentAssign},
      {"&=", Op::kAmpAssign}, {"|=", Op::kPipeAssign}, {"^=", Op::kCaretAssign},
      {"<<=", Op::kLShiftAssign}, {">>=", Op::kRShiftAssign}, {"**=", Op::kPowAssign},
      {"//=", Op::kFloorDivAssign}, {"@=", Op::kAtAssign},
  };
  for (const auto& [spelling, op] : kOps) {
    // Brackets must balance for the tokenizer to get past them.
    const bool bracket = std::string("()[]{}").find(spelling) != std::string::npos;
    TokenStream ts = Tokenize(bracket ? "([{}])\n" : std::string("a ") + spelling + " b\n", 100);
    const Token* found = nullptr;
    for (const Token& t : ts.tokens) {
      if (t.kind == TokenKind::kOp && t.text == spelling) found = &t;
    }
    ASSERT_NE(found, nullptr) << spelling;
    EXPECT_EQ(found->op, op) << spelling;
  }
  TokenStream ts = Tokenize("a ! b\n", 100);
  EXPECT_TRUE(ts.has_error);  // '!' alone is no operator
}

// Keywords carry their Kw; names that merely start like one do not.
TEST(TokenizerTest, KeywordIds) {
  const std::pair<const char*, Kw> kKeywords[] = {
      {"False", Kw::kFalse}, {"None", Kw::kNoneLiteral}, {"True", Kw::kTrue}, {"and", Kw::kAnd},
      {"as", Kw::kAs}, {"assert", Kw::kAssert}, {"async", Kw::kAsync}, {"await", Kw::kAwait},
      {"break", Kw::kBreak}, {"class", Kw::kClass}, {"continue", Kw::kContinue}, {"def", Kw::kDef},
      {"del", Kw::kDel}, {"elif", Kw::kElif}, {"else", Kw::kElse}, {"except", Kw::kExcept},
      {"finally", Kw::kFinally}, {"for", Kw::kFor}, {"from", Kw::kFrom}, {"global", Kw::kGlobal},
      {"if", Kw::kIf}, {"import", Kw::kImport}, {"in", Kw::kIn}, {"is", Kw::kIs},
      {"lambda", Kw::kLambda}, {"nonlocal", Kw::kNonlocal}, {"not", Kw::kNot}, {"or", Kw::kOr},
      {"pass", Kw::kPass}, {"raise", Kw::kRaise}, {"return", Kw::kReturn}, {"try", Kw::kTry},
      {"while", Kw::kWhile}, {"with", Kw::kWith}, {"yield", Kw::kYield},
  };
  for (const auto& [spelling, kw] : kKeywords) {
    TokenStream ts = Tokenize(std::string(spelling) + "\n", 100);
    ASSERT_EQ(ts.tokens[0].kind, TokenKind::kName) << spelling;
    EXPECT_EQ(ts.tokens[0].kw, kw) << spelling;
    // One character more or less is an ordinary name.
    EXPECT_EQ(Tokenize(std::string(spelling) + "x\n", 100).tokens[0].kw, Kw::kNone) << spelling;
    std::string shorter(spelling);
    shorter.pop_back();
    EXPECT_EQ(Tokenize(shorter + "\n", 100).tokens[0].kw, Kw::kNone) << spelling;
  }
  for (const char* name : {"T", "i", "e", "none", "true", "sblock", "iff", "fo", "A"}) {
    EXPECT_EQ(Tokenize(std::string(name) + "\n", 100).tokens[0].kw, Kw::kNone) << name;
  }
}

TEST(TokenizerTest, Numbers) {
  EXPECT_EQ(Kinds("0x1F 0o17 0b101 1_000 1e-5 .5 5. 1E+3 0 00\n"),
            "NUM:0x1F NUM:0o17 NUM:0b101 NUM:1_000 NUM:1e-5 NUM:.5 NUM:5. NUM:1E+3 NUM:0 NUM:00 "
            "NL END");
}

TEST(TokenizerTest, StringsDecodeEscapes) {
  TokenStream ts = Tokenize(R"(s = 'a\n\t\\\'\"\x41\u00e9\101' r'\n' u"x" """t
q""")" "\n", 100);
  ASSERT_FALSE(ts.has_error) << ts.error.message;
  EXPECT_EQ(ts.tokens[2].value, "a\n\t\\'\"A\xC3\xA9" "A");
  EXPECT_EQ(ts.tokens[3].value, "\\n");
  EXPECT_EQ(ts.tokens[4].value, "x");
  EXPECT_EQ(ts.tokens[5].value, "t\nq");
  EXPECT_EQ(ts.tokens[5].pos.line, 1);
  EXPECT_EQ(ts.tokens[5].pos.end_line, 2);
  EXPECT_EQ(ts.tokens[5].pos.end_col, 5);
}

TEST(TokenizerTest, FStringsSplitIntoPieces) {
  TokenStream ts = Tokenize("x = f'a{{{b!r:>{w}}}}c\\n{\"}\" if t else ''}'\n", 100);
  ASSERT_FALSE(ts.has_error) << ts.error.message;
  const Token& t = ts.tokens[2];
  ASSERT_EQ(t.kind, TokenKind::kString);
  ASSERT_TRUE(t.fstring);
  const std::vector<FStringPiece>& p = *t.fstring;
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].text, "a{");
  EXPECT_TRUE(p[1].is_field);
  EXPECT_EQ(p[1].text, "b");
  EXPECT_EQ(p[1].pos.col, 11);
  EXPECT_EQ(p[1].conversion, 'r');
  ASSERT_TRUE(p[1].has_spec);
  ASSERT_EQ(p[1].spec.size(), 2u);
  EXPECT_EQ(p[1].spec[0].text, ">");
  EXPECT_EQ(p[1].spec[1].text, "w");
  EXPECT_EQ(p[2].text, "}c\n");
  // A quote inside a field starts a nested string, as in Python 3.12.
  EXPECT_EQ(p[3].text, "\"}\" if t else ''");
  EXPECT_EQ(ts.tokens[3].kind, TokenKind::kNewline);
  // Plain strings carry no pieces.
  EXPECT_FALSE(Tokenize("'a'\n", 100).tokens[0].fstring);
  // Nested f-strings are bounded by the depth limit.
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "f'{";
  EXPECT_EQ(Tokenize(deep, 100).error.message, "too deeply nested");
}

TEST(TokenizerTest, ColumnsCountCodePoints) {
  TokenStream ts = Tokenize("s = \"\xC3\xA9\xC3\xA9\" + x\n", 100);
  ASSERT_FALSE(ts.has_error);
  EXPECT_EQ(ts.tokens[2].pos.col, 5);
  EXPECT_EQ(ts.tokens[2].pos.end_col, 9);  // two code points + two quotes
  EXPECT_EQ(ts.tokens[3].pos.col, 10);
  EXPECT_EQ(ts.tokens[4].pos.col, 12);
}

TEST(TokenizerTest, OwnLineCommentsAreCollected) {
  TokenStream ts = Tokenize("# head\nx = 1  # eol\n    #indented\nf(a,\n  # inside\n  b)\n", 100);
  ASSERT_FALSE(ts.has_error);
  ASSERT_EQ(ts.comments.size(), 2u);
  EXPECT_EQ(ts.comments[0].text, "head");
  EXPECT_EQ(ts.comments[0].pos.line, 1);
  EXPECT_EQ(ts.comments[1].text, "indented");
  EXPECT_EQ(ts.comments[1].pos.line, 3);
  EXPECT_EQ(ts.comments[1].pos.col, 5);
}

TEST(TokenizerTest, Errors) {
  auto err = [](const std::string& src) {
    TokenStream ts = Tokenize(src, 100);
    EXPECT_TRUE(ts.has_error) << src;
    EXPECT_EQ(ts.tokens.back().kind, TokenKind::kError);
    return std::to_string(ts.error.pos.line) + ":" + std::to_string(ts.error.pos.col) + ": " +
           ts.error.message;
  };
  EXPECT_EQ(err("x = 1abc\n"), "1:5: invalid decimal literal");
  EXPECT_EQ(err("x = 1_\n"), "1:6: invalid decimal literal");
  EXPECT_EQ(err("x = 0b12\n"), "1:8: invalid digit '2' in binary literal");
  EXPECT_EQ(err("x = 0x\n"), "1:6: invalid hexadecimal literal");
  EXPECT_EQ(err("x = 1j\n"), "1:5: imaginary literals are not supported");
  EXPECT_EQ(err("x = 0123\n"),
            "1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix "
            "for octal integers");
  EXPECT_EQ(err("x = 'abc\n"), "1:5: unterminated string literal (detected at line 1)");
  EXPECT_EQ(err("x = \"\"\"abc\n\n"),
            "1:5: unterminated triple-quoted string literal (detected at line 2)");
  EXPECT_EQ(err("x = f'{a'\n"), "1:9: unterminated string literal (detected at line 1)");
  EXPECT_EQ(err("x = f'a}'\n"), "1:8: f-string: single '}' is not allowed");
  EXPECT_EQ(err("x = f'{}'\n"), "1:8: f-string: valid expression required before '}'");
  EXPECT_EQ(err("x = f'{a!x}'\n"),
            "1:10: f-string: invalid conversion character: expected 's', 'r', or 'a'");
  EXPECT_EQ(err("x = f'{a)}'\n"), "1:9: f-string: unmatched ')'");
  EXPECT_EQ(err("x = f'{a#}'\n"), "1:9: f-string expression part cannot include '#'");
  EXPECT_EQ(err("x = b'a'\n"), "1:5: bytes literals are not supported");
  EXPECT_EQ(err("x = '\\N{DASH}'\n"), "1:6: \\N{...} escapes are not supported");
  EXPECT_EQ(err("x = '\\xZ1'\n"), "1:6: truncated \\xXX escape");
  EXPECT_EQ(err("x = (1,\n"), "1:5: '(' was never closed");
  EXPECT_EQ(err("x = 1)\n"), "1:6: unmatched ')'");
  EXPECT_EQ(err("x = [1)\n"), "1:7: closing parenthesis ')' does not match opening parenthesis '['");
  EXPECT_EQ(err("x = 1 \\ y\n"), "1:8: unexpected character after line continuation character");
  EXPECT_EQ(err("if x:\n    a = 1\n  b = 2\n"),
            "3:3: unindent does not match any outer indentation level");
  EXPECT_EQ(err("if x:\n\tif y:\n        pass\n"),
            "3:1: inconsistent use of tabs and spaces in indentation");
  EXPECT_EQ(err(std::string("x = 1\0", 6)), "1:6: source code cannot contain null bytes");
  EXPECT_EQ(err(std::string("x = '\xFF'\n")), "1:6: invalid UTF-8 in source text");
  EXPECT_EQ(err("x = $\n"), "1:5: invalid syntax");
  EXPECT_EQ(err(std::string(300, '(')), "1:101: too deeply nested");
}

}  // namespace
}  // namespace kiln::script::doc::internal
