// Python-subset tokenizer for the Doc reader: turns source text into NAME/NUMBER/STRING/OP tokens
// plus NEWLINE/INDENT/DEDENT, the way CPython's tokenizer does, so that the parser can report the
// same positions CPython would. Own-line comments are collected separately (the reader attaches
// them to statements); end-of-line comments are dropped. Internal to compiler/script/doc.
#ifndef KILN_COMPILER_SCRIPT_DOC_TOKENIZER_H_
#define KILN_COMPILER_SCRIPT_DOC_TOKENIZER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "compiler/script/doc/doc.h"

namespace kiln::script::doc::internal {

enum class TokenKind : unsigned char {
  kName, kNumber, kString, kOp, kNewline, kIndent, kDedent, kEnd,
  kError,  // stands where tokenizing stopped; TokenStream::error says why
};

// Every operator, so that the reader tests a token by comparing one byte, not its spelling.
enum class Op : unsigned char {
  kNone,  // not an operator token
  kLParen, kRParen, kLBracket, kRBracket, kLBrace, kRBrace,
  kComma, kColon, kDot, kSemicolon, kAt, kAssign, kArrow, kWalrus, kEllipsis,
  kPlus, kMinus, kStar, kSlash, kPercent, kAmp, kPipe, kCaret, kTilde, kLShift, kRShift,
  kPow, kFloorDiv, kLt, kGt, kLe, kGe, kEq, kNe,
  // augmented assignments: `+=` ... `@=`
  kPlusAssign, kMinusAssign, kStarAssign, kSlashAssign, kPercentAssign, kAmpAssign,
  kPipeAssign, kCaretAssign, kLShiftAssign, kRShiftAssign, kPowAssign, kFloorDivAssign,
  kAtAssign,
};

// Python's keywords: a kName token that spells one carries its ID.
enum class Kw : unsigned char {
  kNone,  // an ordinary name
  kFalse, kNoneLiteral, kTrue, kAnd, kAs, kAssert, kAsync, kAwait, kBreak, kClass, kContinue,
  kDef, kDel, kElif, kElse, kExcept, kFinally, kFor, kFrom, kGlobal, kIf, kImport, kIn, kIs,
  kLambda, kNonlocal, kNot, kOr, kPass, kRaise, kReturn, kTry, kWhile, kWith, kYield,
};

// One piece of an f-string literal as the tokenizer splits it: literal text, or a replacement
// field whose expression the reader parses (in Python, `{expr!conv:spec}` is implicitly
// parenthesized source text).
struct FStringPiece {
  bool is_field = false;
  std::string text;      // literal: the decoded text; field: the expression's source text
  Pos pos;               // field: where the expression's text starts
  char conversion = 0;   // field: 'r', 's', 'a', or 0 for none
  std::string debug_text;  // field written `{expr=}`: the text "expr=" as written, else empty
  bool has_spec = false;   // field: a ':' format spec follows (it may be empty)
  std::vector<FStringPiece> spec;
};

struct Token {
  TokenKind kind;
  Op op = Op::kNone;       // kOp: which operator
  Kw kw = Kw::kNone;       // kName: which keyword, if any
  absl::string_view text;  // source text; for kString the whole literal with prefix and quotes
  std::string value;       // kString: decoded contents (UTF-8); empty for an f-string
  // kString with an f prefix: its pieces (null for other strings, so tokens stay small).
  std::shared_ptr<const std::vector<FStringPiece>> fstring;
  Pos pos;
};

struct TokenizeError {
  std::string message;
  Pos pos;
};

struct TokenStream {
  // Always ends with exactly one kEnd or kError token.
  std::vector<Token> tokens;
  // Comments standing on their own line, outside brackets, in source order.
  std::vector<Comment> comments;
  bool has_error = false;
  // The error is a bracket still open at the end of the input. The parser reports it only
  // when its own error comes from a later line (as CPython does).
  bool error_is_unclosed_bracket = false;
  TokenizeError error;  // valid when has_error
};

// `max_depth` bounds bracket nesting and indentation levels.
TokenStream Tokenize(absl::string_view source, int max_depth);

}  // namespace kiln::script::doc::internal

#endif  // KILN_COMPILER_SCRIPT_DOC_TOKENIZER_H_
