// Tokenizer for the Doc reader. Mirrors CPython's tokenizer closely enough that error positions
// and messages agree for common mistakes (unterminated strings, bad numbers, brackets, indents).
#include "compiler/script/doc/tokenizer.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kiln::script::doc::internal {
namespace {

bool IsIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool IsIdentChar(unsigned char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Returns the offset of the first byte that is not part of valid UTF-8 (or is NUL), or npos;
// *ascii tells whether every byte before it is ASCII.
size_t FindInvalidByte(absl::string_view s, bool* ascii) {
  *ascii = true;
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    unsigned char c = s[i];
    if (c == 0) return i;
    if (c < 0x80) {
      ++i;
      continue;
    }
    *ascii = false;
    int len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return i;
    }
    if (i + len > n) return i;
    for (int k = 1; k < len; ++k) {
      unsigned char cc = s[i + k];
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return i;
    }
    i += len;
  }
  return absl::string_view::npos;
}

// The operator at the start of `s` (the longest one, as CPython reads them) and its length in
// *len; Op::kNone when `s` starts with no operator.
Op MatchOperator(absl::string_view s, size_t* len) {
  const char c1 = s.size() > 1 ? s[1] : '\0', c2 = s.size() > 2 ? s[2] : '\0';
  auto take = [len](size_t n, Op op) {
    *len = n;
    return op;
  };
  // `x`, or `x=` when the next character is '='.
  auto with_assign = [&](Op plain, Op assign) { return c1 == '=' ? take(2, assign) : take(1, plain); };
  switch (s[0]) {
    case '(': return take(1, Op::kLParen);
    case ')': return take(1, Op::kRParen);
    case '[': return take(1, Op::kLBracket);
    case ']': return take(1, Op::kRBracket);
    case '{': return take(1, Op::kLBrace);
    case '}': return take(1, Op::kRBrace);
    case ',': return take(1, Op::kComma);
    case ';': return take(1, Op::kSemicolon);
    case '~': return take(1, Op::kTilde);
    case '.': return c1 == '.' && c2 == '.' ? take(3, Op::kEllipsis) : take(1, Op::kDot);
    case ':': return with_assign(Op::kColon, Op::kWalrus);
    case '=': return with_assign(Op::kAssign, Op::kEq);
    case '!': return c1 == '=' ? take(2, Op::kNe) : Op::kNone;
    case '+': return with_assign(Op::kPlus, Op::kPlusAssign);
    case '%': return with_assign(Op::kPercent, Op::kPercentAssign);
    case '&': return with_assign(Op::kAmp, Op::kAmpAssign);
    case '|': return with_assign(Op::kPipe, Op::kPipeAssign);
    case '^': return with_assign(Op::kCaret, Op::kCaretAssign);
    case '@': return with_assign(Op::kAt, Op::kAtAssign);
    case '-': return c1 == '>' ? take(2, Op::kArrow) : with_assign(Op::kMinus, Op::kMinusAssign);
    case '*':
      if (c1 == '*') return c2 == '=' ? take(3, Op::kPowAssign) : take(2, Op::kPow);
      return with_assign(Op::kStar, Op::kStarAssign);
    case '/':
      if (c1 == '/') return c2 == '=' ? take(3, Op::kFloorDivAssign) : take(2, Op::kFloorDiv);
      return with_assign(Op::kSlash, Op::kSlashAssign);
    case '<':
      if (c1 == '<') return c2 == '=' ? take(3, Op::kLShiftAssign) : take(2, Op::kLShift);
      return with_assign(Op::kLt, Op::kLe);
    case '>':
      if (c1 == '>') return c2 == '=' ? take(3, Op::kRShiftAssign) : take(2, Op::kRShift);
      return with_assign(Op::kGt, Op::kGe);
    default: return Op::kNone;
  }
}

// The keyword a name spells, or Kw::kNone. Most names are no keyword, and their first character
// alone rules nearly all of them out.
Kw KeywordOf(absl::string_view s) {
  auto is = [s](absl::string_view spelling, Kw kw) { return s == spelling ? kw : Kw::kNone; };
  switch (s[0]) {
    case 'F': return is("False", Kw::kFalse);
    case 'N': return is("None", Kw::kNoneLiteral);
    case 'T': return is("True", Kw::kTrue);
    case 'a':
      if (s == "and") return Kw::kAnd;
      if (s == "as") return Kw::kAs;
      if (s == "assert") return Kw::kAssert;
      if (s == "async") return Kw::kAsync;
      return is("await", Kw::kAwait);
    case 'b': return is("break", Kw::kBreak);
    case 'c':
      if (s == "class") return Kw::kClass;
      return is("continue", Kw::kContinue);
    case 'd':
      if (s == "def") return Kw::kDef;
      return is("del", Kw::kDel);
    case 'e':
      if (s == "elif") return Kw::kElif;
      if (s == "else") return Kw::kElse;
      return is("except", Kw::kExcept);
    case 'f':
      if (s == "finally") return Kw::kFinally;
      if (s == "for") return Kw::kFor;
      return is("from", Kw::kFrom);
    case 'g': return is("global", Kw::kGlobal);
    case 'i':
      if (s == "if") return Kw::kIf;
      if (s == "import") return Kw::kImport;
      if (s == "in") return Kw::kIn;
      return is("is", Kw::kIs);
    case 'l': return is("lambda", Kw::kLambda);
    case 'n':
      if (s == "nonlocal") return Kw::kNonlocal;
      return is("not", Kw::kNot);
    case 'o': return is("or", Kw::kOr);
    case 'p': return is("pass", Kw::kPass);
    case 'r':
      if (s == "raise") return Kw::kRaise;
      return is("return", Kw::kReturn);
    case 't': return is("try", Kw::kTry);
    case 'w':
      if (s == "while") return Kw::kWhile;
      return is("with", Kw::kWith);
    case 'y': return is("yield", Kw::kYield);
    default: return Kw::kNone;
  }
}

class Tokenizer {
 public:
  Tokenizer(absl::string_view src, int max_depth) : src_(src), max_depth_(max_depth) {}

  TokenStream Run() {
    bool ascii = false;
    size_t bad = FindInvalidByte(src_, &ascii);
    if (bad != absl::string_view::npos) {
      // Locate the bad byte, then report it.
      for (size_t i = 0; i < bad; ++i) {
        if (src_[i] == '\n') {
          ++line_;
          line_start_ = i + 1;
        }
      }
      Fail(src_[bad] == 0 ? "source code cannot contain null bytes"
                          : "invalid UTF-8 in source text",
           PosAt(bad, bad + 1));
      return std::move(out_);
    }
    // TVMScript averages a token per 3 bytes and stays under one per 2 (the shared corpus):
    // enough room that the vector of tokens is not regrown and copied.
    out_.tokens.reserve(src_.size() / 2 + 16);
    ascii_ = ascii;
    while (Step()) {
    }
    return std::move(out_);
  }

 private:
  char At(size_t p) const { return p < src_.size() ? src_[p] : '\0'; }
  bool AtEnd(size_t p) const { return p >= src_.size(); }

  // 1-based column (in code points) of byte `p` on the current line.
  int ColAt(size_t p) {
    if (ascii_) return static_cast<int>(p - line_start_) + 1;
    if (cache_line_start_ != line_start_ || p < cache_pos_) {
      cache_line_start_ = line_start_;
      cache_pos_ = line_start_;
      cache_col_ = 1;
    }
    for (; cache_pos_ < p; ++cache_pos_) {
      if ((static_cast<unsigned char>(src_[cache_pos_]) & 0xC0) != 0x80) ++cache_col_;
    }
    return cache_col_;
  }
  // Position of [begin, end) where both lie on the current line.
  Pos PosAt(size_t begin, size_t end) {
    Pos p;
    p.line = p.end_line = line_;
    p.col = ColAt(begin);
    p.end_col = ColAt(end);
    return p;
  }

  void Fail(std::string message, Pos pos) {
    out_.has_error = true;
    out_.error = {std::move(message), pos};
    EmitEmpty(TokenKind::kError, pos);
  }

  // A token with no text (INDENT, DEDENT, END, ERROR).
  Token& EmitEmpty(TokenKind kind, Pos pos) {
    Token& t = out_.tokens.emplace_back();
    t.kind = kind;
    t.pos = pos;
    return t;
  }
  Token& Emit(TokenKind kind, size_t begin, size_t end, Pos pos) {
    Token& t = EmitEmpty(kind, pos);
    t.text = src_.substr(begin, end - begin);
    return t;
  }

  bool IsNewline(size_t p) const { return At(p) == '\n' || At(p) == '\r'; }
  // Consumes the line break at pos_ and moves to the next line.
  void ConsumeNewline() {
    if (At(pos_) == '\r' && At(pos_ + 1) == '\n') {
      pos_ += 2;
    } else {
      pos_ += 1;
    }
    ++line_;
    line_start_ = pos_;
  }

  bool LastIsNewlineOrNone() const {
    return out_.tokens.empty() || out_.tokens.back().kind == TokenKind::kNewline ||
           out_.tokens.back().kind == TokenKind::kDedent;
  }

  // Handles indentation at the start of a logical line. Returns false when tokenizing is over.
  bool StartLine() {
    for (;;) {
      int col = 0, alt = 0;
      size_t p = pos_;
      for (;; ++p) {
        char c = At(p);
        if (c == ' ') {
          ++col;
          ++alt;
        } else if (c == '\t') {
          col = (col / 8 + 1) * 8;
          ++alt;
        } else if (c == '\f') {
          col = alt = 0;
        } else {
          break;
        }
      }
      if (AtEnd(p)) {
        pos_ = p;
        return true;  // EOF handling happens in Step
      }
      if (At(p) == '#') {
        size_t e = p + 1;
        while (!AtEnd(e) && !IsNewline(e)) ++e;
        size_t text_begin = p + 1;
        if (At(text_begin) == ' ') ++text_begin;
        Comment c;
        c.text = std::string(src_.substr(text_begin, e - text_begin));
        c.pos = PosAt(p, e);
        out_.comments.push_back(std::move(c));
        pos_ = e;
        if (!AtEnd(pos_)) ConsumeNewline();
        continue;
      }
      if (IsNewline(p)) {
        pos_ = p;
        ConsumeNewline();
        continue;
      }
      pos_ = p;
      Pos here = PosAt(p, p);
      if (col > indents_.back()) {
        if (alt <= alt_indents_.back()) return TabError(here);
        if (static_cast<int>(indents_.size()) > max_depth_) {
          Fail("too deeply nested", here);
          return false;
        }
        indents_.push_back(col);
        alt_indents_.push_back(alt);
        EmitEmpty(TokenKind::kIndent, here);
      } else {
        while (col < indents_.back()) {
          indents_.pop_back();
          alt_indents_.pop_back();
          EmitEmpty(TokenKind::kDedent, here);
        }
        if (col != indents_.back()) {
          Fail("unindent does not match any outer indentation level", here);
          return false;
        }
        if (alt != alt_indents_.back()) return TabError(here);
      }
      return true;
    }
  }

  bool TabError(Pos here) {
    here.col = 1;
    Fail("inconsistent use of tabs and spaces in indentation", here);
    return false;
  }

  // Produces the next token(s). Returns false when done (END or ERROR emitted).
  bool Step() {
    if (at_line_start_ && brackets_.empty()) {
      at_line_start_ = false;
      if (!StartLine()) return false;
    }
    while (At(pos_) == ' ' || At(pos_) == '\t' || At(pos_) == '\f') ++pos_;
    size_t comment_begin = absl::string_view::npos;
    if (At(pos_) == '#') {
      comment_begin = pos_;
      while (!AtEnd(pos_) && !IsNewline(pos_)) ++pos_;
    }
    if (AtEnd(pos_)) return Finish(comment_begin);
    const size_t start = pos_;
    const char c = At(pos_);
    if (IsNewline(pos_)) {
      if (brackets_.empty()) {
        size_t at = comment_begin != absl::string_view::npos ? comment_begin : pos_;
        if (!LastIsNewlineOrNone()) Emit(TokenKind::kNewline, at, at, PosAt(at, at + 1));
        at_line_start_ = true;
      }
      ConsumeNewline();
      return true;
    }
    if (c == '\\') {
      if (IsNewline(pos_ + 1)) {
        ++pos_;
        ConsumeNewline();
        return true;
      }
      if (AtEnd(pos_ + 1)) {
        Fail("unexpected EOF while parsing", PosAt(pos_, pos_ + 1));
        return false;
      }
      Fail("unexpected character after line continuation character",
           PosAt(pos_ + 1, pos_ + 2));
      return false;
    }
    if (IsIdentStart(static_cast<unsigned char>(c))) {
      size_t e = pos_;
      while (IsIdentChar(static_cast<unsigned char>(At(e)))) ++e;
      if ((At(e) == '\'' || At(e) == '"') && e - pos_ <= 2) {
        bool is_prefix = true;
        for (size_t i = pos_; i < e; ++i) {
          char l = At(i) | 0x20;
          if (l != 'r' && l != 'u' && l != 'b' && l != 'f') is_prefix = false;
        }
        if (is_prefix) return String(e);
      }
      pos_ = e;
      Emit(TokenKind::kName, start, e, PosAt(start, e)).kw = KeywordOf(src_.substr(start, e - start));
      return true;
    }
    if (IsDigit(c) || (c == '.' && IsDigit(At(pos_ + 1)))) return Number();
    if (c == '\'' || c == '"') return String(pos_);
    size_t op_len = 0;
    Op op = MatchOperator(src_.substr(pos_), &op_len);
    if (op != Op::kNone) return Operator(op, op_len);
    size_t e = pos_ + 1;
    while (!AtEnd(e) && (static_cast<unsigned char>(src_[e]) & 0xC0) == 0x80) ++e;
    Fail(static_cast<unsigned char>(c) < 0x80 && c > 0x20
             ? std::string("invalid syntax")
             : absl::StrFormat("invalid character (byte 0x%02x)", static_cast<unsigned char>(c)),
         PosAt(pos_, e));
    return false;
  }

  bool Operator(Op op, size_t len) {
    const size_t start = pos_;
    pos_ += len;
    Pos p = PosAt(start, pos_);
    const char c = src_[start];
    if (op == Op::kLParen || op == Op::kLBracket || op == Op::kLBrace) {
      if (static_cast<int>(brackets_.size()) >= max_depth_) {
        Fail("too deeply nested", p);
        return false;
      }
      brackets_.push_back({c, p});
    } else if (op == Op::kRParen || op == Op::kRBracket || op == Op::kRBrace) {
      if (brackets_.empty()) {
        Fail(absl::StrCat("unmatched '", absl::string_view(&c, 1), "'"), p);
        return false;
      }
      char open = brackets_.back().first;
      char want = open == '(' ? ')' : open == '[' ? ']' : '}';
      if (c != want) {
        std::string msg = absl::StrFormat(
            "closing parenthesis '%c' does not match opening parenthesis '%c'", c, open);
        if (brackets_.back().second.line != p.line) {
          absl::StrAppend(&msg, " on line ", brackets_.back().second.line);
        }
        Fail(std::move(msg), p);
        return false;
      }
      brackets_.pop_back();
    }
    Emit(TokenKind::kOp, start, pos_, p).op = op;
    return true;
  }

  bool Finish(size_t comment_begin) {
    if (!brackets_.empty()) {
      const auto& b = brackets_.back();
      Fail(absl::StrFormat("'%c' was never closed", b.first), b.second);
      out_.error_is_unclosed_bracket = true;
      return false;
    }
    size_t at = comment_begin != absl::string_view::npos ? comment_begin : pos_;
    Pos p = PosAt(at, at);
    if (!LastIsNewlineOrNone()) Emit(TokenKind::kNewline, at, at, p);
    // DEDENTs at EOF stand at the start of the line after the last one.
    Pos d;
    d.line = d.end_line = pos_ == line_start_ ? line_ : line_ + 1;
    d.col = d.end_col = 1;
    for (size_t i = 1; i < indents_.size(); ++i) {
      EmitEmpty(TokenKind::kDedent, d);
    }
    EmitEmpty(TokenKind::kEnd, d);
    return false;
  }

  // Reads decimal digits with single underscores between them. Returns false (after Fail) on a
  // misplaced underscore. Sets *any when at least one digit was read.
  bool DecimalDigits(bool* any) {
    *any = false;
    while (IsDigit(At(pos_))) {
      *any = true;
      ++pos_;
      if (At(pos_) == '_') {
        if (!IsDigit(At(pos_ + 1))) {
          Fail("invalid decimal literal", PosAt(pos_, pos_ + 1));
          return false;
        }
        ++pos_;
      }
    }
    return true;
  }

  bool Number() {
    const size_t start = pos_;
    auto fail_at_start = [&](const std::string& msg) {
      Fail(msg, PosAt(start, start + 1));
      return false;
    };
    char n1 = At(pos_ + 1) | 0x20;
    if (At(pos_) == '0' && (n1 == 'x' || n1 == 'o' || n1 == 'b')) {
      const char* kind = n1 == 'x' ? "hexadecimal" : n1 == 'o' ? "octal" : "binary";
      auto valid = [n1](char ch) {
        if (n1 == 'x') return IsHexDigit(ch);
        if (n1 == 'o') return ch >= '0' && ch <= '7';
        return ch == '0' || ch == '1';
      };
      pos_ += 2;
      bool any = false;
      for (;;) {
        if (At(pos_) == '_') {
          if (!valid(At(pos_ + 1))) {
            Fail(absl::StrCat("invalid ", kind, " literal"), PosAt(pos_ + 1, pos_ + 2));
            return false;
          }
          ++pos_;
        }
        if (!valid(At(pos_))) break;
        any = true;
        ++pos_;
      }
      if (IsDigit(At(pos_))) {
        Fail(absl::StrFormat("invalid digit '%c' in %s literal", At(pos_), kind),
             PosAt(pos_, pos_ + 1));
        return false;
      }
      if (!any || IsIdentChar(static_cast<unsigned char>(At(pos_)))) {
        size_t at = any ? pos_ : pos_ - 1;
        Fail(absl::StrCat("invalid ", kind, " literal"), PosAt(at, at + 1));
        return false;
      }
      Emit(TokenKind::kNumber, start, pos_, PosAt(start, pos_));
      return true;
    }
    bool any = false, is_float = false;
    if (!DecimalDigits(&any)) return false;
    const size_t int_end = pos_;
    if (At(pos_) == '.') {
      is_float = true;
      ++pos_;
      bool frac = false;
      if (!DecimalDigits(&frac)) return false;
    }
    if ((At(pos_) | 0x20) == 'e') {
      size_t save = pos_;
      ++pos_;
      if (At(pos_) == '+' || At(pos_) == '-') ++pos_;
      bool exp = false;
      if (!DecimalDigits(&exp)) return false;
      if (!exp) {
        pos_ = save;
        return fail_at_start("invalid decimal literal");
      }
      is_float = true;
    }
    if ((At(pos_) | 0x20) == 'j') return fail_at_start("imaginary literals are not supported");
    if (IsIdentChar(static_cast<unsigned char>(At(pos_)))) {
      return fail_at_start("invalid decimal literal");
    }
    if (!is_float && At(start) == '0') {
      for (size_t i = start; i < int_end; ++i) {
        if (At(i) != '0' && At(i) != '_') {
          Fail("leading zeros in decimal integer literals are not permitted; use an 0o prefix "
               "for octal integers",
               PosAt(start, start + 1));
          return false;
        }
      }
    }
    Emit(TokenKind::kNumber, start, pos_, PosAt(start, pos_));
    return true;
  }

  // `quote_at` is the offset of the opening quote; pos_ is the start of the prefix (if any).
  bool String(size_t quote_at) {
    const size_t start = pos_;
    const int start_line = line_;
    Pos start_pos = PosAt(start, start + 1);
    bool raw = false, fstr = false;
    for (size_t i = start; i < quote_at; ++i) {
      char l = At(i) | 0x20;
      if (l == 'r') raw = true;
      if (l == 'f') fstr = true;
      if (l == 'b') {
        Fail("bytes literals are not supported", start_pos);
        return false;
      }
    }
    const char q = At(quote_at);
    const bool triple = At(quote_at + 1) == q && At(quote_at + 2) == q;
    pos_ = quote_at + (triple ? 3 : 1);
    const Literal lit{q, triple, raw, start_pos, start_line};
    std::shared_ptr<std::vector<FStringPiece>> pieces;
    std::string value;
    if (fstr) {
      // f-strings nest inside their own fields: bound the recursion.
      if (++fstring_depth_ > max_depth_) {
        Fail("too deeply nested", start_pos);
        return false;
      }
      pieces = std::make_shared<std::vector<FStringPiece>>();
      bool ok = FStringPieces(lit, /*in_spec=*/false, pieces.get());
      --fstring_depth_;
      if (!ok) return false;
      pos_ += triple ? 3 : 1;
    } else {
      for (;;) {
        if (AtEnd(pos_)) return Unterminated(lit);
        char c = At(pos_);
        if (IsClosingQuote(lit)) {
          pos_ += triple ? 3 : 1;
          break;
        }
        if (IsNewline(pos_)) {
          if (!triple) return Unterminated(lit);
          value.push_back('\n');
          ConsumeNewline();
          continue;
        }
        if (c != '\\') {
          value.push_back(c);
          ++pos_;
          continue;
        }
        if (!Backslash(lit, &value)) return false;
      }
    }
    Pos p = start_pos;
    p.end_line = line_;
    p.end_col = ColAt(pos_);
    Token& t = Emit(TokenKind::kString, start, pos_, p);
    t.value = std::move(value);
    t.fstring = std::move(pieces);
    return true;
  }

  // The opening of the string literal being read.
  struct Literal {
    char quote;
    bool triple, raw;
    Pos start_pos;
    int start_line;
  };

  bool IsClosingQuote(const Literal& lit) const {
    return At(pos_) == lit.quote &&
           (!lit.triple || (At(pos_ + 1) == lit.quote && At(pos_ + 2) == lit.quote));
  }

  bool Unterminated(const Literal& lit) {
    int detected = line_;
    if (AtEnd(pos_) && pos_ > 0 && IsNewline(pos_ - 1) && lit.triple) --detected;
    Pos p = lit.start_pos;
    p.line = p.end_line = lit.start_line;
    Fail(absl::StrCat(lit.triple ? "unterminated triple-quoted string literal"
                                 : "unterminated string literal",
                      " (detected at line ", detected, ")"),
         p);
    return false;
  }

  // pos_ is at a backslash inside literal text: appends what it stands for to `value`.
  bool Backslash(const Literal& lit, std::string* value) {
    if (AtEnd(pos_ + 1)) {
      ++pos_;
      return Unterminated(lit);
    }
    if (!lit.raw) return Escape(value);
    value->push_back('\\');
    ++pos_;
    if (IsNewline(pos_)) {
      value->push_back('\n');
      ConsumeNewline();
    } else {
      value->push_back(At(pos_));
      ++pos_;
    }
    return true;
  }

  // Reads f-string text up to its closing quote (or, in a format spec, up to the '}' that ends
  // the field; neither is consumed), splitting it into literal text and replacement fields.
  bool FStringPieces(const Literal& lit, bool in_spec, std::vector<FStringPiece>* pieces) {
    std::string text;
    auto flush = [&]() {
      if (text.empty()) return;
      pieces->emplace_back().text = std::move(text);
      text.clear();
    };
    for (;;) {
      if (AtEnd(pos_)) return Unterminated(lit);
      const char c = At(pos_);
      if (IsClosingQuote(lit)) {
        if (in_spec) {
          Fail("f-string: expecting '}'", PosAt(pos_, pos_ + 1));
          return false;
        }
        flush();
        return true;
      }
      if (IsNewline(pos_)) {
        if (!lit.triple) return Unterminated(lit);
        text.push_back('\n');
        ConsumeNewline();
        continue;
      }
      if (c == '{') {
        if (!in_spec && At(pos_ + 1) == '{') {
          text.push_back('{');
          pos_ += 2;
          continue;
        }
        flush();
        ++pos_;
        if (!Field(lit, pieces)) return false;
        continue;
      }
      if (c == '}') {
        if (in_spec) {
          flush();
          return true;
        }
        if (At(pos_ + 1) != '}') {
          Fail("f-string: single '}' is not allowed", PosAt(pos_, pos_ + 1));
          return false;
        }
        text.push_back('}');
        pos_ += 2;
        continue;
      }
      if (c == '\\') {
        if (!Backslash(lit, &text)) return false;
        continue;
      }
      text.push_back(c);
      ++pos_;
    }
  }

  // pos_ is just after the '{' of a replacement field: reads `expr[=][!conv][:spec]}`. The
  // expression's text is kept for the reader; nested strings in it are read (and dropped) here
  // only to find where it ends, so a quote inside them ends nothing (as in Python 3.12).
  bool Field(const Literal& lit, std::vector<FStringPiece>* pieces) {
    if (++fstring_depth_ > max_depth_) {
      Fail("too deeply nested", PosAt(pos_, pos_ + 1));
      return false;
    }
    FStringPiece f;
    f.is_field = true;
    f.pos = PosAt(pos_, pos_ + 1);
    const size_t expr_start = pos_;
    int depth = 0;
    for (;;) {
      if (AtEnd(pos_)) return Unterminated(lit);
      const char c = At(pos_);
      if (IsNewline(pos_)) {
        if (!lit.triple) return Unterminated(lit);
        ConsumeNewline();
        continue;
      }
      if (depth == 0 && (c == '}' || c == ':' || (c == '!' && At(pos_ + 1) != '='))) break;
      if (c == '(' || c == '[' || c == '{') {
        if (++depth + fstring_depth_ > max_depth_) {
          Fail("too deeply nested", PosAt(pos_, pos_ + 1));
          return false;
        }
      } else if (c == ')' || c == ']' || c == '}') {
        if (depth == 0) {
          Fail(absl::StrFormat("f-string: unmatched '%c'", c), PosAt(pos_, pos_ + 1));
          return false;
        }
        --depth;
      } else if (c == '#' || c == '\\') {
        Fail(c == '#' ? "f-string expression part cannot include '#'"
                      : "f-string expression part cannot include a backslash",
             PosAt(pos_, pos_ + 1));
        return false;
      } else if (c == '\'' || c == '"' || IsIdentStart(static_cast<unsigned char>(c))) {
        size_t e = pos_;
        while (IsIdentChar(static_cast<unsigned char>(At(e)))) ++e;
        bool is_string = At(e) == '\'' || At(e) == '"';
        for (size_t i = pos_; is_string && i < e; ++i) {
          char l = At(i) | 0x20;
          is_string = e - pos_ <= 2 && (l == 'r' || l == 'u' || l == 'b' || l == 'f');
        }
        if (!is_string) {
          pos_ = e;
          continue;
        }
        const size_t tokens = out_.tokens.size();
        if (!String(e)) return false;
        out_.tokens.resize(tokens);
        continue;
      }
      ++pos_;
    }
    std::string expr(src_.substr(expr_start, pos_ - expr_start));
    // `{expr=}` (Python 3.8): the text up to and including '=' is printed before the value.
    size_t last = expr.find_last_not_of(" \t\r\n\f");
    if (last != std::string::npos && expr[last] == '=' &&
        (last == 0 || std::string("=!<>").find(expr[last - 1]) == std::string::npos)) {
      f.debug_text = expr;
      expr.resize(last);
    }
    if (expr.find_first_not_of(" \t\r\n\f") == std::string::npos) {
      Fail("f-string: valid expression required before '}'", PosAt(pos_, pos_ + 1));
      return false;
    }
    f.text = std::move(expr);
    if (At(pos_) == '!') {
      const char k = At(pos_ + 1);
      if (k != 'r' && k != 's' && k != 'a') {
        Fail("f-string: invalid conversion character: expected 's', 'r', or 'a'",
             PosAt(pos_ + 1, pos_ + 2));
        return false;
      }
      f.conversion = k;
      pos_ += 2;
    }
    if (At(pos_) == ':') {
      ++pos_;
      f.has_spec = true;
      if (!FStringPieces(lit, /*in_spec=*/true, &f.spec)) return false;
    }
    if (At(pos_) != '}') {
      if (AtEnd(pos_)) return Unterminated(lit);
      Fail("f-string: expecting '}'", PosAt(pos_, pos_ + 1));
      return false;
    }
    ++pos_;
    --fstring_depth_;
    pieces->push_back(std::move(f));
    return true;
  }

  // pos_ is at a backslash in a non-raw string; decodes one escape into `value`.
  bool Escape(std::string* value) {
    const size_t bs = pos_;
    char e = At(pos_ + 1);
    pos_ += 2;
    switch (e) {
      case '\n':
      case '\r':
        pos_ = bs + 1;
        ConsumeNewline();
        return true;
      case '\\': value->push_back('\\'); return true;
      case '\'': value->push_back('\''); return true;
      case '"': value->push_back('"'); return true;
      case 'a': value->push_back('\a'); return true;
      case 'b': value->push_back('\b'); return true;
      case 'f': value->push_back('\f'); return true;
      case 'n': value->push_back('\n'); return true;
      case 'r': value->push_back('\r'); return true;
      case 't': value->push_back('\t'); return true;
      case 'v': value->push_back('\v'); return true;
      case 'N':
        Fail("\\N{...} escapes are not supported", PosAt(bs, pos_));
        return false;
      case 'x':
      case 'u':
      case 'U': {
        int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        uint32_t cp = 0;
        for (int i = 0; i < digits; ++i) {
          if (!IsHexDigit(At(pos_))) {
            Fail(absl::StrFormat("truncated \\%c%s escape", e, std::string(digits, 'X')),
                 PosAt(bs, pos_));
            return false;
          }
          cp = cp * 16 + HexValue(At(pos_));
          ++pos_;
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          Fail("illegal Unicode character in escape", PosAt(bs, pos_));
          return false;
        }
        AppendUtf8(cp, value);
        return true;
      }
      default:
        break;
    }
    if (e >= '0' && e <= '7') {
      uint32_t cp = e - '0';
      for (int i = 0; i < 2 && At(pos_) >= '0' && At(pos_) <= '7'; ++i, ++pos_) {
        cp = cp * 8 + (At(pos_) - '0');
      }
      AppendUtf8(cp, value);
      return true;
    }
    // Unknown escapes keep the backslash, as Python does.
    value->push_back('\\');
    pos_ = bs + 1;
    return true;
  }

  absl::string_view src_;
  int max_depth_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  bool ascii_ = false;  // every byte of the source is ASCII: a column is a byte offset
  size_t cache_line_start_ = static_cast<size_t>(-1), cache_pos_ = 0;
  int cache_col_ = 1;
  bool at_line_start_ = true;
  std::vector<int> indents_{0}, alt_indents_{0};
  std::vector<std::pair<char, Pos>> brackets_;
  int fstring_depth_ = 0;  // f-strings and replacement fields being read, nested
  TokenStream out_;
};

}  // namespace

TokenStream Tokenize(absl::string_view source, int max_depth) {
  return Tokenizer(source, max_depth).Run();
}

}  // namespace kiln::script::doc::internal
