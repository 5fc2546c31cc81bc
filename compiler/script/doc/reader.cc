// Recursive-descent parser for the Python subset TVMScript is written in. It follows CPython's
// grammar (precedence, targets, comprehensions) and, for the common mistakes, CPython's error
// messages and positions, so users see the same diagnostics they would get from `python`.
// Recursion depth is counted so that hostile input yields "too deeply nested", never a crash.
#include "compiler/script/doc/reader.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/script/doc/tokenizer.h"

namespace kiln::script::doc {
namespace {

using internal::Kw;
using internal::Op;
using internal::Token;
using internal::TokenKind;
using internal::TokenStream;

Pos Join(const Pos& a, const Pos& b) {
  Pos p = a;
  p.end_line = b.end_line;
  p.end_col = b.end_col;
  return p;
}

// What CPython calls an expression kind in "cannot assign to ..." messages.
std::string DescribeForTarget(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kCall: return "function call";
    case ExprKind::kConstant:
      switch (e.const_kind) {
        case Expr::ConstKind::kNone: return "None";
        case Expr::ConstKind::kBool: return e.bool_value ? "True" : "False";
        case Expr::ConstKind::kEllipsis: return "ellipsis";
        default: return "literal";
      }
    case ExprKind::kCompare: return "comparison";
    case ExprKind::kIfExp: return "conditional expression";
    case ExprKind::kLambda: return "lambda";
    case ExprKind::kDict: return "dict literal";
    case ExprKind::kSet: return "set display";
    case ExprKind::kComprehension:
      return e.name == "generator" ? "generator expression" : e.name + " comprehension";
    default: return "expression";
  }
}

class Parser {
 public:
  Parser(absl::string_view source, TokenStream ts, const ReadOptions& options)
      : source_(source), ts_(std::move(ts)), max_depth_(options.max_depth) {}

  bool ParseModule(Module* m) {
    const Token& first = Peek();
    TakeComments(first.kind == TokenKind::kEnd ? INT32_MAX : first.pos.line,
                 &m->leading_comments);
    while (!failed_ && Peek().kind != TokenKind::kEnd) {
      if (!ParseStatement(&m->body)) break;
    }
    if (failed_) return false;
    TakeComments(INT32_MAX, &m->trailing_comments);
    return true;
  }

  bool failed() const { return failed_; }
  const std::string& error_message() const { return error_message_; }
  const Pos& error_pos() const { return error_pos_; }

 private:
  // ------------------------------ token helpers ------------------------------
  const Token& Peek(size_t k = 0) const {
    size_t i = idx_ + k;
    return i < ts_.tokens.size() ? ts_.tokens[i] : ts_.tokens.back();
  }
  const Token& Next() {
    const Token& t = Peek();
    if (idx_ + 1 < ts_.tokens.size()) ++idx_;
    if (t.kind != TokenKind::kNewline && t.kind != TokenKind::kIndent &&
        t.kind != TokenKind::kDedent) {
      last_ = t.pos;
    }
    return t;
  }
  // Only operator tokens carry an Op, only names a Kw: the kind need not be checked as well.
  bool IsOp(Op op, size_t k = 0) const { return Peek(k).op == op; }
  bool IsKw(Kw kw, size_t k = 0) const { return Peek(k).kw == kw; }
  bool AcceptOp(Op op) {
    if (!IsOp(op)) return false;
    Next();
    return true;
  }
  bool ExpectOp(Op op) {
    if (AcceptOp(op)) return true;
    if (op == Op::kColon && Peek().kind == TokenKind::kNewline) {
      Fail(Peek().pos, "expected ':'");
    } else {
      SyntaxError(Peek());
    }
    return false;
  }
  bool ExpectNewline() {
    if (Peek().kind == TokenKind::kNewline) {
      Next();
      return true;
    }
    SyntaxError(Peek());
    return false;
  }

  // Could `t` begin an expression? Used for "Perhaps you forgot a comma?".
  static bool StartsExpression(const Token& t) {
    switch (t.kind) {
      case TokenKind::kNumber:
      case TokenKind::kString: return true;
      case TokenKind::kName:
        return t.kw == Kw::kNone || t.kw == Kw::kNoneLiteral || t.kw == Kw::kTrue ||
               t.kw == Kw::kFalse || t.kw == Kw::kLambda || t.kw == Kw::kNot;
      case TokenKind::kOp:
        return t.op == Op::kLParen || t.op == Op::kLBracket || t.op == Op::kLBrace ||
               t.op == Op::kMinus || t.op == Op::kPlus || t.op == Op::kTilde ||
               t.op == Op::kEllipsis || t.op == Op::kStar;
      default: return false;
    }
  }

  // ------------------------------ errors ------------------------------
  void Fail(const Pos& pos, std::string message) {
    if (failed_) return;
    failed_ = true;
    if (Peek().kind == TokenKind::kError) {
      // The parser ran into the place where tokenizing stopped: the tokenizer's reason wins.
      error_message_ = ts_.error.message;
      error_pos_ = ts_.error.pos;
      return;
    }
    error_message_ = std::move(message);
    error_pos_ = pos;
  }
  // Whether a syntax error found at `at` is better explained by the tokenizer's error: an
  // unterminated string or bad character anywhere in the file, or a bracket left open on an
  // earlier line (CPython's rule).
  bool PreferTokenizerError(const Pos& at) const {
    if (!ts_.has_error) return false;
    return !ts_.error_is_unclosed_bracket || at.line > ts_.error.pos.line;
  }
  // A plain "invalid syntax" at `t` (or the tokenizer's error, see above).
  void SyntaxError(const Token& t) { SyntaxError(t.pos, "invalid syntax"); }
  void SyntaxError(const Pos& at, std::string message) {
    if (failed_) return;
    if (PreferTokenizerError(at)) {
      failed_ = true;
      error_message_ = ts_.error.message;
      error_pos_ = ts_.error.pos;
      return;
    }
    Fail(at, std::move(message));
  }

  class DepthGuard {
   public:
    DepthGuard(Parser* p, const Pos& at) : p_(p) {
      ok_ = ++p_->depth_ <= p_->max_depth_;
      if (!ok_) p_->Fail(at, "too deeply nested");
    }
    ~DepthGuard() { --p_->depth_; }
    bool ok() const { return ok_; }

   private:
    Parser* p_;
    bool ok_;
  };

  // A left-associative chain (`a + b + c`, `x.y[0](1)`) is read in a loop, and a flat list of
  // operands (`a and b and c`, `a < b < c`) becomes a nested IR chain in the parser; either way
  // each link is one more level of a tree that the parser, verifiers, printer and destructors walk
  // recursively, so each counts as a level of nesting for the rest of the expression.
  class ChainDepth {
   public:
    explicit ChainDepth(Parser* p) : p_(p) {}
    ~ChainDepth() { p_->depth_ -= links_; }
    bool Link(const Pos& at) {
      ++links_;
      if (++p_->depth_ <= p_->max_depth_) return true;
      p_->Fail(at, "too deeply nested");
      return false;
    }

   private:
    Parser* p_;
    int links_ = 0;
  };

  void TakeComments(int before_line, std::vector<Comment>* out) {
    while (next_comment_ < ts_.comments.size() &&
           ts_.comments[next_comment_].pos.line < before_line) {
      out->push_back(ts_.comments[next_comment_++]);
    }
  }

  // ------------------------------ statements ------------------------------
  bool ParseStatement(std::vector<StmtPtr>* out) {
    const Token& t = Peek();
    std::vector<Comment> comments;
    TakeComments(t.pos.line, &comments);
    size_t first = out->size();
    bool ok;
    if (t.kind == TokenKind::kIndent) {
      Fail(Peek(1).pos, "unexpected indent");
      return false;
    }
    if (t.kw == Kw::kIf || t.kw == Kw::kFor || t.kw == Kw::kWhile || t.kw == Kw::kWith ||
        t.kw == Kw::kDef || t.kw == Kw::kClass) {
      ok = ParseCompound(out);
    } else if (IsOp(Op::kAt)) {
      ok = ParseDecorated(out);
    } else if (t.kw == Kw::kTry || t.kw == Kw::kRaise || t.kw == Kw::kAsync ||
               t.kw == Kw::kYield || t.kw == Kw::kAwait) {
      Fail(t.pos, absl::StrCat("'", t.text, "' is not supported in TVMScript"));
      return false;
    } else {
      ok = ParseSimpleStatements(out);
    }
    if (ok && out->size() > first) (*out)[first]->leading_comments = std::move(comments);
    return ok;
  }

  bool ParseSimpleStatements(std::vector<StmtPtr>* out) {
    for (;;) {
      StmtPtr s = ParseSimpleStatement();
      if (!s) return false;
      out->push_back(std::move(s));
      if (!AcceptOp(Op::kSemicolon)) break;
      if (Peek().kind == TokenKind::kNewline) break;
    }
    return ExpectNewline();
  }

  StmtPtr NewStmt(StmtKind k, const Pos& start) {
    auto s = std::make_shared<Stmt>(k);
    s->pos = start;
    return s;
  }
  StmtPtr Finish(StmtPtr s) {
    if (failed_) return nullptr;
    s->pos = Join(s->pos, last_);
    return s;
  }

  StmtPtr ParseSimpleStatement() {
    const Token& t = Peek();
    const Pos start = t.pos;
    if (t.kw != Kw::kNone) {
      if (t.kw == Kw::kPass || t.kw == Kw::kBreak || t.kw == Kw::kContinue) {
        Next();
        return Finish(NewStmt(t.kw == Kw::kPass    ? StmtKind::kPass
                              : t.kw == Kw::kBreak ? StmtKind::kBreak
                                                   : StmtKind::kContinue,
                              start));
      }
      if (t.kw == Kw::kReturn) {
        Next();
        StmtPtr s = NewStmt(StmtKind::kReturn, start);
        if (Peek().kind != TokenKind::kNewline && !IsOp(Op::kSemicolon)) {
          s->value = ParseStarExpressions();
        }
        return Finish(s);
      }
      if (t.kw == Kw::kImport) return ParseImport();
      if (t.kw == Kw::kFrom) return ParseFromImport();
      if (t.kw == Kw::kGlobal || t.kw == Kw::kNonlocal) {
        Next();
        StmtPtr s = NewStmt(t.kw == Kw::kGlobal ? StmtKind::kGlobal : StmtKind::kNonlocal, start);
        do {
          Alias a;
          if (!ParseName(&a.name, &a.pos)) return nullptr;
          s->names.push_back(std::move(a));
        } while (AcceptOp(Op::kComma));
        return Finish(s);
      }
      if (t.kw == Kw::kDel) {
        Next();
        StmtPtr s = NewStmt(StmtKind::kDelete, start);
        do {
          if (Peek().kind == TokenKind::kNewline && !s->targets.empty()) break;
          ExprPtr e = ParseBitOr();
          if (!e || !CheckTarget(*e, "delete", "")) return nullptr;
          s->targets.push_back(std::move(e));
        } while (AcceptOp(Op::kComma));
        return Finish(s);
      }
      if (t.kw == Kw::kAssert) {
        Next();
        StmtPtr s = NewStmt(StmtKind::kAssert, start);
        s->test = ParseExpression();
        if (s->test && AcceptOp(Op::kComma)) s->msg = ParseExpression();
        return Finish(s);
      }
    }
    ExprPtr first = ParseStarExpressions();
    if (!first) return nullptr;
    if (AcceptOp(Op::kColon)) {
      StmtPtr s = NewStmt(StmtKind::kAnnAssign, start);
      if (first->kind == ExprKind::kTuple) {
        Fail(first->pos, "only single target (not tuple) can be annotated");
        return nullptr;
      }
      if (first->kind != ExprKind::kName && first->kind != ExprKind::kAttribute &&
          first->kind != ExprKind::kSubscript) {
        Fail(first->pos, "illegal target for annotation");
        return nullptr;
      }
      s->target = first;
      s->annotation = ParseExpression();
      if (s->annotation && AcceptOp(Op::kAssign)) s->value = ParseStarExpressions();
      return Finish(s);
    }
    const Token& op = Peek();
    if (op.op >= Op::kPlusAssign) {  // an augmented assignment
      if (first->kind != ExprKind::kName && first->kind != ExprKind::kAttribute &&
          first->kind != ExprKind::kSubscript) {
        std::string what = first->kind == ExprKind::kTuple ? "tuple"
                           : first->kind == ExprKind::kList ? "list"
                                                           : DescribeForTarget(*first);
        Fail(first->pos,
             absl::StrCat("'", what, "' is an illegal expression for augmented assignment"));
        return nullptr;
      }
      Next();
      StmtPtr s = NewStmt(StmtKind::kAugAssign, start);
      s->target = first;
      s->op = std::string(op.text.substr(0, op.text.size() - 1));
      s->value = ParseStarExpressions();
      return Finish(s);
    }
    if (IsOp(Op::kAssign)) {
      StmtPtr s = NewStmt(StmtKind::kAssign, start);
      s->targets.push_back(first);
      ExprPtr value;
      while (AcceptOp(Op::kAssign)) {
        if (value) s->targets.push_back(value);
        value = ParseStarExpressions();
        if (!value) return nullptr;
      }
      for (const ExprPtr& target : s->targets) {
        if (!CheckTarget(*target, "assign to", " here. Maybe you meant '==' instead of '='?")) {
          return nullptr;
        }
      }
      s->value = value;
      return Finish(s);
    }
    if (op.kind != TokenKind::kNewline && !IsOp(Op::kSemicolon)) {
      if (first->kind == ExprKind::kName && first->name == "print" && StartsExpression(op) &&
          !ts_.has_error) {
        Fail(first->pos, "Missing parentheses in call to 'print'. Did you mean print(...)?");
      } else {
        SyntaxError(op);
      }
      return nullptr;
    }
    StmtPtr s = NewStmt(StmtKind::kExpr, start);
    s->value = first;
    return Finish(s);
  }

  bool CheckTarget(const Expr& e, const char* verb, const char* hint) {
    switch (e.kind) {
      case ExprKind::kName:
      case ExprKind::kAttribute:
      case ExprKind::kSubscript: return true;
      case ExprKind::kStarred:
        if (std::string(verb) == "delete") break;
        return CheckTarget(*e.value, verb, hint);
      case ExprKind::kTuple:
      case ExprKind::kList:
        for (const ExprPtr& x : e.elts) {
          if (!CheckTarget(*x, verb, hint)) return false;
        }
        return true;
      default: break;
    }
    Fail(e.pos, absl::StrCat("cannot ", verb, " ", DescribeForTarget(e), hint));
    return false;
  }

  bool ParseName(std::string* name, Pos* pos) {
    const Token& t = Peek();
    if (t.kind != TokenKind::kName || t.kw != Kw::kNone) {
      SyntaxError(t);
      return false;
    }
    Next();
    *name = std::string(t.text);
    *pos = t.pos;
    return true;
  }

  bool ParseDottedName(std::string* name, Pos* pos) {
    if (!ParseName(name, pos)) return false;
    while (AcceptOp(Op::kDot)) {
      std::string part;
      Pos p;
      if (!ParseName(&part, &p)) return false;
      absl::StrAppend(name, ".", part);
      *pos = Join(*pos, p);
    }
    return true;
  }

  bool ParseAlias(bool dotted, std::vector<Alias>* out) {
    Alias a;
    if (!(dotted ? ParseDottedName(&a.name, &a.pos) : ParseName(&a.name, &a.pos))) return false;
    if (IsKw(Kw::kAs)) {
      Next();
      Pos p;
      if (!ParseName(&a.asname, &p)) return false;
      a.pos = Join(a.pos, p);
    }
    out->push_back(std::move(a));
    return true;
  }

  StmtPtr ParseImport() {
    StmtPtr s = NewStmt(StmtKind::kImport, Next().pos);
    do {
      if (!ParseAlias(true, &s->names)) return nullptr;
    } while (AcceptOp(Op::kComma));
    return Finish(s);
  }

  StmtPtr ParseFromImport() {
    StmtPtr s = NewStmt(StmtKind::kImportFrom, Next().pos);
    for (;;) {
      if (AcceptOp(Op::kDot)) {
        s->level += 1;
      } else if (AcceptOp(Op::kEllipsis)) {
        s->level += 3;
      } else {
        break;
      }
    }
    if (!IsKw(Kw::kImport) || s->level == 0) {
      Pos p;
      if (!ParseDottedName(&s->module, &p)) return nullptr;
    }
    if (!IsKw(Kw::kImport)) {
      SyntaxError(Peek());
      return nullptr;
    }
    Next();
    if (IsOp(Op::kStar)) {
      Alias a;
      a.name = "*";
      a.pos = Next().pos;
      s->names.push_back(std::move(a));
      return Finish(s);
    }
    bool paren = AcceptOp(Op::kLParen);
    do {
      if (paren && IsOp(Op::kRParen)) break;
      if (!ParseAlias(false, &s->names)) return nullptr;
    } while (AcceptOp(Op::kComma));
    if (paren && !ExpectOp(Op::kRParen)) return nullptr;
    return Finish(s);
  }

  bool ParseDecorated(std::vector<StmtPtr>* out) {
    const int first_line = Peek().pos.line;
    std::vector<ExprPtr> decorators;
    bool pyfunc = false;
    while (IsOp(Op::kAt)) {
      Next();
      ExprPtr e = ParseNamedExpression();
      if (!e || !ExpectNewline()) return false;
      pyfunc |= IsPyFuncDecorator(*e);
      decorators.push_back(std::move(e));
    }
    if (!IsKw(Kw::kDef) && !IsKw(Kw::kClass)) {
      SyntaxError(Peek());
      return false;
    }
    size_t at = out->size();
    skip_next_body_ = pyfunc && IsKw(Kw::kDef);
    if (!ParseCompound(out)) return false;
    if (pyfunc && (*out)[at]->kind == StmtKind::kFunctionDef) {
      (*out)[at]->source = SourceLines(first_line, (*out)[at]->pos.end_line);
    }
    (*out)[at]->decorators = std::move(decorators);
    return true;
  }

  // Lines first..last of the source, without their common indentation; whitespace-only lines
  // become empty (so that the text does not depend on where it was indented).
  std::string SourceLines(int first, int last) const {
    std::vector<absl::string_view> lines;
    int line = 1;
    for (absl::string_view l : absl::StrSplit(source_, '\n')) {
      if (line >= first && line <= last) {
        absl::ConsumeSuffix(&l, "\r");
        if (absl::StripAsciiWhitespace(l).empty()) l = absl::string_view();
        lines.push_back(l);
      }
      if (++line > last) break;
    }
    // The first line's indentation goes from every line; a line indented less (inside a
    // multi-line string) loses what it has, so that the text reads back the same.
    const size_t indent = lines.empty() ? 0 : lines[0].find_first_not_of(" \t");
    std::string out;
    for (absl::string_view l : lines) {
      size_t strip = std::min(indent, std::min(l.size(), l.find_first_not_of(" \t")));
      out.append(l.data() + strip, l.size() - strip);
      out.push_back('\n');
    }
    return out;
  }

  // The body of a @I.pyfunc function: skipped token by token (any Python: try, raise, ...),
  // with the comments inside it. The statement ends at its last token.
  bool SkipBlock() {
    if (!ExpectOp(Op::kColon)) return false;
    // Where tokenizing stopped (an unclosed bracket, a bad character) the text is no Python: the
    // tokenizer's error is reported.
    auto stop = [this] { return Peek().kind == TokenKind::kEnd || Peek().kind == TokenKind::kError; };
    if (Peek().kind != TokenKind::kNewline) {
      while (Peek().kind != TokenKind::kNewline && !stop()) Next();
    } else {
      Next();
      if (Peek().kind != TokenKind::kIndent) {
        Fail(Peek().pos, "expected an indented block after function definition");
        return false;
      }
      int depth = 0;
      do {
        const Token& t = Next();
        if (t.kind == TokenKind::kIndent) ++depth;
        if (t.kind == TokenKind::kDedent) --depth;
      } while (depth > 0 && !stop());
    }
    if (Peek().kind == TokenKind::kError) {
      Fail(Peek().pos, "invalid syntax");
      return false;
    }
    while (next_comment_ < ts_.comments.size() && ts_.comments[next_comment_].pos.line <= last_.end_line) {
      ++next_comment_;
    }
    return !failed_;
  }

  // Parses ':' and an indented block (or statements on the same line) into `body`.
  bool ParseBlock(absl::string_view what, int header_line, std::vector<StmtPtr>* body) {
    if (!ExpectOp(Op::kColon)) return false;
    if (Peek().kind != TokenKind::kNewline) return ParseSimpleStatements(body);
    const Token& nl = Next();
    if (Peek().kind != TokenKind::kIndent) {
      Fail(Peek().kind == TokenKind::kEnd ? nl.pos : Peek().pos,
           absl::StrCat("expected an indented block after ", what, " on line ", header_line));
      return false;
    }
    DepthGuard guard(this, Peek().pos);
    if (!guard.ok()) return false;
    Next();
    while (Peek().kind != TokenKind::kDedent && Peek().kind != TokenKind::kEnd) {
      if (!ParseStatement(body)) return false;
    }
    if (Peek().kind == TokenKind::kDedent) Next();
    return true;
  }

  bool ParseCompound(std::vector<StmtPtr>* out) {
    const Token& t = Peek();
    StmtPtr s;
    if (t.kw == Kw::kIf) {
      s = ParseIf();
    } else if (t.kw == Kw::kFor) {
      s = ParseFor();
    } else if (t.kw == Kw::kWhile) {
      Next();
      s = NewStmt(StmtKind::kWhile, t.pos);
      s->test = ParseNamedExpression();
      if (!s->test || !ParseBlock("'while' statement", t.pos.line, &s->body)) return false;
      if (!ParseElse(&s->orelse)) return false;
      s = Finish(s);
    } else if (t.kw == Kw::kWith) {
      s = ParseWith();
    } else if (t.kw == Kw::kDef) {
      s = ParseFunctionDef();
    } else {
      s = ParseClassDef();
    }
    if (!s) return false;
    out->push_back(std::move(s));
    return true;
  }

  bool ParseElse(std::vector<StmtPtr>* orelse) {
    if (!IsKw(Kw::kElse)) return true;
    int line = Next().pos.line;
    return ParseBlock("'else' statement", line, orelse);
  }

  StmtPtr ParseIf() {
    const Token& t = Next();  // 'if' or 'elif'
    StmtPtr s = NewStmt(StmtKind::kIf, t.pos);
    s->test = ParseNamedExpression();
    if (!s->test) return nullptr;
    if (!ParseBlock(t.kw == Kw::kIf ? "'if' statement" : "'elif' statement", t.pos.line, &s->body)) {
      return nullptr;
    }
    if (IsKw(Kw::kElif)) {
      StmtPtr e = ParseIf();
      if (!e) return nullptr;
      s->orelse.push_back(std::move(e));
    } else if (!ParseElse(&s->orelse)) {
      return nullptr;
    }
    return Finish(s);
  }

  StmtPtr ParseFor() {
    const Token& t = Next();
    StmtPtr s = NewStmt(StmtKind::kFor, t.pos);
    s->target = ParseTargetList();
    if (!s->target || !CheckTarget(*s->target, "assign to", "")) return nullptr;
    if (!IsKw(Kw::kIn)) {
      SyntaxError(Peek());
      return nullptr;
    }
    Next();
    s->iter = ParseStarExpressions();
    if (!s->iter || !ParseBlock("'for' statement", t.pos.line, &s->body)) return nullptr;
    if (!ParseElse(&s->orelse)) return nullptr;
    return Finish(s);
  }

  StmtPtr ParseWith() {
    const Token& t = Next();
    StmtPtr s = NewStmt(StmtKind::kWith, t.pos);
    do {
      WithItem item;
      item.context_expr = ParseExpression();
      if (!item.context_expr) return nullptr;
      if (IsKw(Kw::kAs)) {
        Next();
        item.optional_vars = ParseBitOr();  // one target: commas separate items
        if (!item.optional_vars || !CheckTarget(*item.optional_vars, "assign to", "")) {
          return nullptr;
        }
      }
      s->items.push_back(std::move(item));
    } while (AcceptOp(Op::kComma));
    if (!ParseBlock("'with' statement", t.pos.line, &s->body)) return nullptr;
    return Finish(s);
  }

  StmtPtr ParseFunctionDef() {
    const Token& t = Next();
    StmtPtr s = NewStmt(StmtKind::kFunctionDef, t.pos);
    Pos p;
    if (!ParseName(&s->name, &p)) return nullptr;
    if (AcceptOp(Op::kLBracket)) {
      do {
        if (IsOp(Op::kRBracket)) break;
        std::string name;
        if (!ParseName(&name, &p)) return nullptr;
        s->type_params.push_back(std::move(name));
      } while (AcceptOp(Op::kComma));
      if (!ExpectOp(Op::kRBracket)) return nullptr;
    }
    if (!ExpectOp(Op::kLParen) || !ParseParameters(&s->args) || !ExpectOp(Op::kRParen)) return nullptr;
    if (AcceptOp(Op::kArrow)) {
      s->returns = ParseExpression();
      if (!s->returns) return nullptr;
    }
    bool skip = skip_next_body_;
    skip_next_body_ = false;
    if (!(skip ? SkipBlock() : ParseBlock("function definition", t.pos.line, &s->body))) return nullptr;
    return Finish(s);
  }

  bool ParseParameters(std::vector<Arg>* args) {
    bool seen_star = false, seen_default = false;
    while (!IsOp(Op::kRParen)) {
      Arg a;
      const Token& t = Peek();
      if (IsOp(Op::kPow)) {
        Next();
        a.kind = Arg::Kind::kKwArgs;
      } else if (IsOp(Op::kStar)) {
        Next();
        if (seen_star) {
          Fail(t.pos, "* argument may appear only once");
          return false;
        }
        seen_star = true;
        if (IsOp(Op::kComma) || IsOp(Op::kRParen)) {
          // A bare '*': keyword-only parameters follow.
          if (IsOp(Op::kRParen) || IsOp(Op::kPow, 1)) {
            Fail(t.pos, "named arguments must follow bare *");
            return false;
          }
          Next();
          continue;
        }
        a.kind = Arg::Kind::kVarArgs;
      } else if (IsOp(Op::kSlash)) {
        Fail(t.pos, "positional-only parameters are not supported");
        return false;
      } else {
        a.kind = seen_star ? Arg::Kind::kKeywordOnly : Arg::Kind::kPositional;
      }
      if (!ParseName(&a.name, &a.pos)) return false;
      a.pos = Join(t.pos, a.pos);
      if (AcceptOp(Op::kColon)) {
        a.annotation = ParseExpression();
        if (!a.annotation) return false;
        a.pos = Join(a.pos, a.annotation->pos);
      }
      if (IsOp(Op::kAssign) && (a.kind == Arg::Kind::kPositional || a.kind == Arg::Kind::kKeywordOnly)) {
        Next();
        a.default_value = ParseExpression();
        if (!a.default_value) return false;
        if (a.kind == Arg::Kind::kPositional) seen_default = true;
      } else if (a.kind == Arg::Kind::kPositional && seen_default) {
        Fail(a.pos, "non-default argument follows default argument");
        return false;
      }
      bool kwargs = a.kind == Arg::Kind::kKwArgs;
      args->push_back(std::move(a));
      if (!AcceptOp(Op::kComma)) break;
      if (kwargs && !IsOp(Op::kRParen)) {
        Fail(Peek().pos, "arguments cannot follow var-keyword argument");
        return false;
      }
    }
    return true;
  }

  StmtPtr ParseClassDef() {
    const Token& t = Next();
    StmtPtr s = NewStmt(StmtKind::kClassDef, t.pos);
    Pos p;
    if (!ParseName(&s->name, &p)) return nullptr;
    if (AcceptOp(Op::kLParen)) {
      ExprPtr call = NewExpr(ExprKind::kCall, t.pos);
      if (!ParseCallArguments(call.get())) return nullptr;
      s->bases = std::move(call->args);
      s->keywords = std::move(call->keywords);
    }
    if (!ParseBlock("class definition", t.pos.line, &s->body)) return nullptr;
    return Finish(s);
  }

  // ------------------------------ expressions ------------------------------
  ExprPtr NewExpr(ExprKind k, const Pos& pos) {
    auto e = std::make_shared<Expr>(k);
    e->pos = pos;
    return e;
  }
  ExprPtr Done(ExprPtr e) {
    if (failed_) return nullptr;
    e->pos = Join(e->pos, last_);
    return e;
  }

  // star_expressions: a tuple without parentheses when there is a comma.
  ExprPtr ParseStarExpressions() {
    ExprPtr first = ParseStarExpression();
    if (!first || !IsOp(Op::kComma)) return first;
    ExprPtr tuple = NewExpr(ExprKind::kTuple, first->pos);
    tuple->elts.push_back(first);
    while (AcceptOp(Op::kComma)) {
      if (!StartsExpression(Peek())) break;
      ExprPtr e = ParseStarExpression();
      if (!e) return nullptr;
      tuple->elts.push_back(std::move(e));
    }
    return Done(tuple);
  }

  ExprPtr ParseStarExpression() {
    if (!IsOp(Op::kStar)) return ParseExpression();
    ExprPtr s = NewExpr(ExprKind::kStarred, Next().pos);
    s->value = ParseBitOr();
    if (!s->value) return nullptr;
    return Done(s);
  }

  // Targets of `for` and comprehensions: stops before `in`.
  ExprPtr ParseTargetList() {
    auto one = [this]() -> ExprPtr {
      if (!IsOp(Op::kStar)) return ParseBitOr();
      ExprPtr s = NewExpr(ExprKind::kStarred, Next().pos);
      s->value = ParseBitOr();
      if (!s->value) return nullptr;
      return Done(s);
    };
    ExprPtr first = one();
    if (!first || !IsOp(Op::kComma)) return first;
    ExprPtr tuple = NewExpr(ExprKind::kTuple, first->pos);
    tuple->elts.push_back(first);
    while (AcceptOp(Op::kComma)) {
      if (IsKw(Kw::kIn) || IsOp(Op::kAssign) || IsOp(Op::kColon)) break;
      ExprPtr e = one();
      if (!e) return nullptr;
      tuple->elts.push_back(std::move(e));
    }
    return Done(tuple);
  }

  ExprPtr ParseNamedExpression() {
    ExprPtr e = ParseExpression();
    if (e && IsOp(Op::kWalrus)) {
      Fail(Peek().pos, "assignment expressions (:=) are not supported");
      return nullptr;
    }
    return e;
  }

  ExprPtr ParseExpression() {
    DepthGuard guard(this, Peek().pos);
    if (!guard.ok()) return nullptr;
    if (IsKw(Kw::kLambda)) return ParseLambda();
    ExprPtr body = ParseDisjunction();
    if (!body || !IsKw(Kw::kIf)) return body;
    Next();
    ExprPtr e = NewExpr(ExprKind::kIfExp, body->pos);
    e->value = body;
    e->test = ParseDisjunction();
    if (!e->test) return nullptr;
    if (!IsKw(Kw::kElse)) {
      Fail(Join(body->pos, e->test->pos), "expected 'else' after 'if' expression");
      return nullptr;
    }
    Next();
    e->orelse = ParseExpression();
    if (!e->orelse) return nullptr;
    return Done(e);
  }

  ExprPtr ParseLambda() {
    ExprPtr e = NewExpr(ExprKind::kLambda, Next().pos);
    while (!IsOp(Op::kColon)) {
      if (IsOp(Op::kStar) || IsOp(Op::kPow)) {
        Fail(Peek().pos, "starred lambda parameters are not supported");
        return nullptr;
      }
      std::string name;
      Pos p;
      if (!ParseName(&name, &p)) return nullptr;
      if (IsOp(Op::kAssign)) {
        Fail(Peek().pos, "lambda parameter defaults are not supported");
        return nullptr;
      }
      e->lambda_args.push_back(std::move(name));
      if (!AcceptOp(Op::kComma)) break;
    }
    if (!ExpectOp(Op::kColon)) return nullptr;
    e->value = ParseExpression();
    if (!e->value) return nullptr;
    return Done(e);
  }

  ExprPtr ParseBoolChain(Kw op, const char* spelling, ExprPtr (Parser::*sub)()) {
    ExprPtr first = (this->*sub)();
    if (!first || !IsKw(op)) return first;
    ExprPtr e = NewExpr(ExprKind::kBoolOp, first->pos);
    e->name = spelling;
    e->values.push_back(first);
    ChainDepth chain(this);
    while (IsKw(op)) {
      if (!chain.Link(Peek().pos)) return nullptr;
      Next();
      ExprPtr v = (this->*sub)();
      if (!v) return nullptr;
      e->values.push_back(std::move(v));
    }
    return Done(e);
  }
  ExprPtr ParseDisjunction() { return ParseBoolChain(Kw::kOr, "or", &Parser::ParseConjunction); }
  ExprPtr ParseConjunction() { return ParseBoolChain(Kw::kAnd, "and", &Parser::ParseInversion); }

  ExprPtr ParseInversion() {
    if (!IsKw(Kw::kNot)) return ParseComparison();
    DepthGuard guard(this, Peek().pos);
    if (!guard.ok()) return nullptr;
    ExprPtr e = NewExpr(ExprKind::kUnaryOp, Next().pos);
    e->name = "not";
    e->value = ParseInversion();
    if (!e->value) return nullptr;
    return Done(e);
  }

  // Consumes a comparison operator if one is next; returns its spelling or "".
  absl::string_view AcceptCompareOp() {
    const Token& t = Peek();
    if (t.op == Op::kLt || t.op == Op::kGt || t.op == Op::kEq || t.op == Op::kGe ||
        t.op == Op::kLe || t.op == Op::kNe) {
      Next();
      return t.text;
    }
    if (IsKw(Kw::kIn)) {
      Next();
      return "in";
    }
    if (IsKw(Kw::kNot) && IsKw(Kw::kIn, 1)) {
      Next();
      Next();
      return "not in";
    }
    if (IsKw(Kw::kIs)) {
      Next();
      if (IsKw(Kw::kNot)) {
        Next();
        return "is not";
      }
      return "is";
    }
    return "";
  }

  ExprPtr ParseComparison() {
    ExprPtr left = ParseBitOr();
    if (!left) return nullptr;
    ExprPtr e;
    ChainDepth chain(this);
    for (;;) {
      const Pos at = Peek().pos;
      absl::string_view op = AcceptCompareOp();
      if (op.empty()) break;
      if (!chain.Link(at)) return nullptr;
      if (!e) {
        e = NewExpr(ExprKind::kCompare, left->pos);
        e->left = left;
      }
      ExprPtr right = ParseBitOr();
      if (!right) return nullptr;
      e->ops.emplace_back(op);
      e->comparators.push_back(std::move(right));
    }
    return e ? Done(e) : left;
  }

  // Binary operator levels, loosest first.
  static bool IsBinaryOpAtLevel(const Token& t, int level) {
    const Op s = t.op;
    switch (level) {
      case 0: return s == Op::kPipe;
      case 1: return s == Op::kCaret;
      case 2: return s == Op::kAmp;
      case 3: return s == Op::kLShift || s == Op::kRShift;
      case 4: return s == Op::kPlus || s == Op::kMinus;
      default:
        return s == Op::kStar || s == Op::kSlash || s == Op::kFloorDiv || s == Op::kPercent ||
               s == Op::kAt;
    }
  }

  ExprPtr ParseBinary(int level) {
    if (level > 5) return ParseFactor();
    ExprPtr e = ParseBinary(level + 1);
    ChainDepth chain(this);
    while (e && IsBinaryOpAtLevel(Peek(), level)) {
      if (!chain.Link(Peek().pos)) return nullptr;
      ExprPtr b = NewExpr(ExprKind::kBinOp, e->pos);
      b->name = std::string(Next().text);
      b->left = std::move(e);
      b->right = ParseBinary(level + 1);
      if (!b->right) return nullptr;
      e = Done(b);
    }
    return e;
  }
  ExprPtr ParseBitOr() { return ParseBinary(0); }

  ExprPtr ParseFactor() {
    const Token& t = Peek();
    if (t.op != Op::kMinus && t.op != Op::kPlus && t.op != Op::kTilde) {
      return ParsePower();
    }
    DepthGuard guard(this, t.pos);
    if (!guard.ok()) return nullptr;
    ExprPtr e = NewExpr(ExprKind::kUnaryOp, Next().pos);
    e->name = std::string(t.text);
    e->value = ParseFactor();
    if (!e->value) return nullptr;
    return Done(e);
  }

  ExprPtr ParsePower() {
    ExprPtr base = ParsePrimary();
    if (!base || !IsOp(Op::kPow)) return base;
    DepthGuard guard(this, Peek().pos);
    if (!guard.ok()) return nullptr;
    Next();
    ExprPtr e = NewExpr(ExprKind::kBinOp, base->pos);
    e->name = "**";
    e->left = base;
    e->right = ParseFactor();
    if (!e->right) return nullptr;
    return Done(e);
  }

  ExprPtr ParsePrimary() {
    ExprPtr e = ParseAtom();
    ChainDepth chain(this);
    while (e) {
      if ((IsOp(Op::kDot) || IsOp(Op::kLParen) || IsOp(Op::kLBracket)) && !chain.Link(Peek().pos)) return nullptr;
      if (IsOp(Op::kDot)) {
        Next();
        ExprPtr a = NewExpr(ExprKind::kAttribute, e->pos);
        a->value = std::move(e);
        Pos p;
        if (!ParseName(&a->name, &p)) return nullptr;
        e = Done(a);
      } else if (IsOp(Op::kLParen)) {
        Next();
        ExprPtr c = NewExpr(ExprKind::kCall, e->pos);
        c->func = std::move(e);
        if (!ParseCallArguments(c.get())) return nullptr;
        e = Done(c);
      } else if (IsOp(Op::kLBracket)) {
        Next();
        ExprPtr s = NewExpr(ExprKind::kSubscript, e->pos);
        s->value = std::move(e);
        s->slice = ParseSlices();
        if (!s->slice || !ExpectOp(Op::kRBracket)) return nullptr;
        e = Done(s);
      } else {
        break;
      }
    }
    return e;
  }

  // After an element inside brackets: a following expression means a missing comma.
  bool CheckForgotComma(const Expr& prev) {
    if (StartsExpression(Peek()) && !IsOp(Op::kStar) && !IsOp(Op::kMinus) && !IsOp(Op::kPlus) && !IsOp(Op::kTilde) &&
        !IsKw(Kw::kNot)) {
      if (PreferTokenizerError(Peek().pos)) {
        SyntaxError(Peek());
      } else {
        Fail(Join(prev.pos, Peek().pos), "invalid syntax. Perhaps you forgot a comma?");
      }
      return false;
    }
    return true;
  }

  // After '(' of a call (or class bases); consumes the ')'.
  bool ParseCallArguments(Expr* call) {
    bool seen_keyword = false, seen_kwunpack = false;
    while (!IsOp(Op::kRParen)) {
      const Token& t = Peek();
      const Expr* last = nullptr;
      if (IsOp(Op::kPow)) {
        Next();
        Keyword k;
        k.pos = t.pos;
        k.value = ParseExpression();
        if (!k.value) return false;
        k.pos = Join(k.pos, k.value->pos);
        last = k.value.get();
        call->keywords.push_back(std::move(k));
        seen_kwunpack = true;
      } else if (IsOp(Op::kStar)) {
        if (seen_kwunpack) {
          Fail(t.pos, "iterable argument unpacking follows keyword argument unpacking");
          return false;
        }
        ExprPtr s = NewExpr(ExprKind::kStarred, Next().pos);
        s->value = ParseExpression();
        if (!s->value) return false;
        last = s.get();
        call->args.push_back(Done(s));
      } else if (t.kind == TokenKind::kName && IsOp(Op::kAssign, 1)) {
        Keyword k;
        if (!ParseName(&k.arg, &k.pos)) return false;
        Next();
        k.value = ParseExpression();
        if (!k.value) return false;
        k.pos = Join(k.pos, k.value->pos);
        last = k.value.get();
        call->keywords.push_back(std::move(k));
        seen_keyword = true;
      } else {
        ExprPtr e = ParseNamedExpression();
        if (!e) return false;
        if (IsKw(Kw::kFor)) {
          e = ParseComprehension("generator", e, nullptr);
          if (!e) return false;
          if (!call->args.empty() || !call->keywords.empty() || (IsOp(Op::kComma) && !IsOp(Op::kRParen, 1))) {
            Fail(e->pos, "Generator expression must be parenthesized");
            return false;
          }
        }
        if (seen_keyword || seen_kwunpack) {
          Fail(e->pos, seen_kwunpack ? "positional argument follows keyword argument unpacking"
                                     : "positional argument follows keyword argument");
          return false;
        }
        last = e.get();
        call->args.push_back(std::move(e));
      }
      if (!AcceptOp(Op::kComma)) {
        if (!IsOp(Op::kRParen) && !CheckForgotComma(*last)) return false;
        break;
      }
    }
    return ExpectOp(Op::kRParen);
  }

  ExprPtr ParseSlices() {
    ExprPtr first = ParseSlice();
    if (!first || !IsOp(Op::kComma)) return first;
    ExprPtr tuple = NewExpr(ExprKind::kTuple, first->pos);
    tuple->elts.push_back(first);
    while (AcceptOp(Op::kComma)) {
      if (IsOp(Op::kRBracket)) break;
      ExprPtr e = ParseSlice();
      if (!e) return nullptr;
      tuple->elts.push_back(std::move(e));
    }
    return Done(tuple);
  }

  ExprPtr ParseSlice() {
    ExprPtr lower;
    if (!IsOp(Op::kColon)) {
      lower = ParseStarExpression();
      if (!lower || !IsOp(Op::kColon)) return lower;
    }
    ExprPtr s = NewExpr(ExprKind::kSlice, lower ? lower->pos : Peek().pos);
    Next();  // ':'
    s->lower = std::move(lower);
    auto at_end = [this]() { return IsOp(Op::kColon) || IsOp(Op::kComma) || IsOp(Op::kRBracket); };
    if (!at_end()) {
      s->upper = ParseExpression();
      if (!s->upper) return nullptr;
    }
    if (AcceptOp(Op::kColon) && !IsOp(Op::kComma) && !IsOp(Op::kRBracket)) {
      s->step = ParseExpression();
      if (!s->step) return nullptr;
    }
    return Done(s);
  }

  // `elt` (and `value` for dicts) already parsed; Peek() is 'for'.
  ExprPtr ParseComprehension(const char* kind, ExprPtr elt, ExprPtr value) {
    ExprPtr c = NewExpr(ExprKind::kComprehension, elt->pos);
    c->name = kind;
    if (value) {
      c->left = std::move(elt);
      c->right = std::move(value);
    } else {
      c->value = std::move(elt);
    }
    while (IsKw(Kw::kFor)) {
      Next();
      Generator g;
      g.target = ParseTargetList();
      if (!g.target || !CheckTarget(*g.target, "assign to", "")) return nullptr;
      if (!IsKw(Kw::kIn)) {
        SyntaxError(Peek());
        return nullptr;
      }
      Next();
      g.iter = ParseDisjunction();
      if (!g.iter) return nullptr;
      while (IsKw(Kw::kIf)) {
        Next();
        ExprPtr cond = ParseDisjunction();
        if (!cond) return nullptr;
        g.ifs.push_back(std::move(cond));
      }
      c->generators.push_back(std::move(g));
    }
    return Done(c);
  }

  // Elements of a bracketed display up to `close` (not consumed), with comma checks.
  bool ParseElements(Op close, std::vector<ExprPtr>* elts, bool* trailing_comma) {
    *trailing_comma = false;
    while (!IsOp(close)) {
      ExprPtr e = ParseStarExpression();
      if (!e) return false;
      elts->push_back(e);
      if (!AcceptOp(Op::kComma)) {
        if (!IsOp(close)) {
          if (CheckForgotComma(*e)) SyntaxError(Peek());
          return false;
        }
        return true;
      }
      *trailing_comma = true;
    }
    return true;
  }

  ExprPtr ParseAtom() {
    const Token& t = Peek();
    switch (t.kind) {
      case TokenKind::kName: {
        if (t.kw == Kw::kTrue || t.kw == Kw::kFalse || t.kw == Kw::kNoneLiteral) {
          Next();
          ExprPtr c = NewExpr(ExprKind::kConstant, t.pos);
          if (t.kw == Kw::kNoneLiteral) {
            c->const_kind = Expr::ConstKind::kNone;
          } else {
            c->const_kind = Expr::ConstKind::kBool;
            c->bool_value = t.kw == Kw::kTrue;
          }
          return c;
        }
        if (t.kw != Kw::kNone) {
          SyntaxError(t);
          return nullptr;
        }
        Next();
        ExprPtr n = NewExpr(ExprKind::kName, t.pos);
        n->name = std::string(t.text);
        return n;
      }
      case TokenKind::kNumber: return ParseNumber();
      case TokenKind::kString: {
        // Adjacent literals concatenate; with an f-string among them the result is one f-string.
        ExprPtr joined = NewExpr(ExprKind::kJoinedStr, t.pos);
        std::string text;
        bool has_field = false;
        while (Peek().kind == TokenKind::kString) {
          const Token& s = Next();
          if (!s.fstring) {
            text += s.value;
            continue;
          }
          if (!AppendFStringPieces(*s.fstring, joined.get(), &text)) return nullptr;
          has_field = has_field || !joined->values.empty();
        }
        if (!has_field) {
          ExprPtr c = NewExpr(ExprKind::kConstant, t.pos);
          c->const_kind = Expr::ConstKind::kStr;
          c->str_value = std::move(text);
          return Done(c);
        }
        FlushFStringText(joined.get(), &text);
        return Done(joined);
      }
      case TokenKind::kOp: break;
      default:
        SyntaxError(t);
        return nullptr;
    }
    if (t.op == Op::kEllipsis) {
      Next();
      ExprPtr c = NewExpr(ExprKind::kConstant, t.pos);
      c->const_kind = Expr::ConstKind::kEllipsis;
      return c;
    }
    if (t.op != Op::kLParen && t.op != Op::kLBracket && t.op != Op::kLBrace) {
      SyntaxError(t);
      return nullptr;
    }
    Next();  // the depth of bracket nesting is counted by ParseExpression inside
    if (t.op == Op::kLParen) return ParseParenthesized(t.pos);
    if (t.op == Op::kLBracket) {
      ExprPtr list = NewExpr(ExprKind::kList, t.pos);
      if (!IsOp(Op::kRBracket) && !IsOp(Op::kStar)) {
        ExprPtr first = ParseNamedExpression();
        if (!first) return nullptr;
        if (IsKw(Kw::kFor)) {
          ExprPtr c = ParseComprehension("list", first, nullptr);
          if (!c || !ExpectOp(Op::kRBracket)) return nullptr;
          c->pos = t.pos;
          return Done(c);
        }
        list->elts.push_back(first);
        if (!AcceptOp(Op::kComma)) {
          if (!IsOp(Op::kRBracket) && !CheckForgotComma(*first)) return nullptr;
          if (!ExpectOp(Op::kRBracket)) return nullptr;
          return Done(list);
        }
      }
      bool trailing;
      if (!ParseElements(Op::kRBracket, &list->elts, &trailing) || !ExpectOp(Op::kRBracket)) return nullptr;
      return Done(list);
    }
    return ParseBrace(t.pos);
  }

  // Appends the literal text of an f-string to `text` and its fields to `joined` (flushing the
  // text before each field as a str constant), as Python's ast.JoinedStr holds them.
  bool AppendFStringPieces(const std::vector<internal::FStringPiece>& pieces, Expr* joined,
                           std::string* text) {
    for (const internal::FStringPiece& piece : pieces) {
      if (!piece.is_field) {
        *text += piece.text;
        continue;
      }
      *text += piece.debug_text;  // `{x=}` prints "x=" first
      FlushFStringText(joined, text);
      ExprPtr field = NewExpr(ExprKind::kFormattedValue, piece.pos);
      field->value = ParseFieldExpression(piece);
      if (!field->value) return false;
      field->pos = field->value->pos;
      if (piece.conversion) {
        field->name = std::string(1, piece.conversion);
      } else if (!piece.debug_text.empty() && !piece.has_spec) {
        field->name = "r";  // `{x=}` shows repr(x) unless a conversion or spec says otherwise
      }
      if (piece.has_spec) {
        field->format_spec = NewExpr(ExprKind::kJoinedStr, piece.pos);
        std::string spec_text;
        if (!AppendFStringPieces(piece.spec, field->format_spec.get(), &spec_text)) return false;
        FlushFStringText(field->format_spec.get(), &spec_text);
      }
      joined->values.push_back(std::move(field));
    }
    return true;
  }

  void FlushFStringText(Expr* joined, std::string* text) {
    if (text->empty()) return;
    ExprPtr c = NewExpr(ExprKind::kConstant, joined->pos);
    c->const_kind = Expr::ConstKind::kStr;
    c->str_value = std::move(*text);
    text->clear();
    joined->values.push_back(std::move(c));
  }

  // Parses a replacement field's expression, which Python reads as if parenthesized, and moves
  // its positions (and any error's) to where the text stands in the source.
  ExprPtr ParseFieldExpression(const internal::FStringPiece& piece) {
    DepthGuard guard(this, piece.pos);
    if (!guard.ok()) return nullptr;
    ReadOptions options;
    options.max_depth = max_depth_ - depth_;
    const std::string source = absl::StrCat("(", piece.text, ")");  // the tokens point into it
    Parser sub(source, internal::Tokenize(source, options.max_depth), options);
    ExprPtr e = sub.ParseStarExpressions();
    if (e && sub.Peek().kind != TokenKind::kNewline && sub.Peek().kind != TokenKind::kEnd) {
      sub.SyntaxError(sub.Peek());
    }
    // Text on the first line sits one column right of the '(' added before it.
    auto shift = [&piece](Pos* p) {
      auto one = [&piece](int* line, int* col) {
        if (*line == 1) *col += piece.pos.col - 2;
        *line += piece.pos.line - 1;
      };
      one(&p->line, &p->col);
      one(&p->end_line, &p->end_col);
    };
    if (sub.failed()) {
      Pos at = sub.error_pos();
      shift(&at);
      Fail(at, sub.error_message());
      return nullptr;
    }
    ShiftPositions(e.get(), shift);
    return e;
  }

  template <typename F>
  static void ShiftPositions(Expr* e, const F& shift) {
    if (!e) return;
    shift(&e->pos);
    for (Expr* c : {e->value.get(), e->slice.get(), e->lower.get(), e->upper.get(), e->step.get(),
                    e->func.get(), e->left.get(), e->right.get(), e->test.get(),
                    e->orelse.get(), e->format_spec.get()}) {
      ShiftPositions(c, shift);
    }
    for (const auto* v : {&e->args, &e->values, &e->elts, &e->keys, &e->comparators}) {
      for (const ExprPtr& c : *v) ShiftPositions(c.get(), shift);
    }
    for (Keyword& k : e->keywords) {
      shift(&k.pos);
      ShiftPositions(k.value.get(), shift);
    }
    for (Generator& g : e->generators) {
      ShiftPositions(g.target.get(), shift);
      ShiftPositions(g.iter.get(), shift);
      for (const ExprPtr& c : g.ifs) ShiftPositions(c.get(), shift);
    }
  }

  ExprPtr ParseParenthesized(const Pos& open) {
    if (AcceptOp(Op::kRParen)) {
      ExprPtr tuple = NewExpr(ExprKind::kTuple, open);
      tuple->parenthesized = true;
      return Done(tuple);
    }
    if (IsKw(Kw::kYield)) {
      Fail(Peek().pos, "'yield' is not supported in TVMScript");
      return nullptr;
    }
    ExprPtr first = IsOp(Op::kStar) ? ParseStarExpression() : ParseNamedExpression();
    if (!first) return nullptr;
    if (IsKw(Kw::kFor)) {
      ExprPtr c = ParseComprehension("generator", first, nullptr);
      if (!c || !ExpectOp(Op::kRParen)) return nullptr;
      c->pos = open;
      return Done(c);
    }
    if (!AcceptOp(Op::kComma)) {
      if (!IsOp(Op::kRParen) && !CheckForgotComma(*first)) return nullptr;
      if (!ExpectOp(Op::kRParen)) return nullptr;
      return first;  // like Python's ast, the position excludes the parentheses
    }
    ExprPtr tuple = NewExpr(ExprKind::kTuple, open);
    tuple->parenthesized = true;
    tuple->elts.push_back(first);
    bool trailing;
    if (!ParseElements(Op::kRParen, &tuple->elts, &trailing) || !ExpectOp(Op::kRParen)) return nullptr;
    return Done(tuple);
  }

  ExprPtr ParseBrace(const Pos& open) {
    if (AcceptOp(Op::kRBrace)) return Done(NewExpr(ExprKind::kDict, open));
    if (IsOp(Op::kPow)) {
      Fail(Peek().pos, "dict unpacking (**) is not supported");
      return nullptr;
    }
    ExprPtr first = ParseStarExpression();
    if (!first) return nullptr;
    if (AcceptOp(Op::kColon)) {
      ExprPtr value = ParseExpression();
      if (!value) return nullptr;
      if (IsKw(Kw::kFor)) {
        ExprPtr c = ParseComprehension("dict", first, value);
        if (!c || !ExpectOp(Op::kRBrace)) return nullptr;
        c->pos = open;
        return Done(c);
      }
      ExprPtr dict = NewExpr(ExprKind::kDict, open);
      dict->keys.push_back(first);
      dict->values.push_back(value);
      while (AcceptOp(Op::kComma)) {
        if (IsOp(Op::kRBrace)) break;
        if (IsOp(Op::kPow)) {
          Fail(Peek().pos, "dict unpacking (**) is not supported");
          return nullptr;
        }
        ExprPtr k = ParseExpression();
        if (!k || !ExpectOp(Op::kColon)) return nullptr;
        ExprPtr v = ParseExpression();
        if (!v) return nullptr;
        dict->keys.push_back(std::move(k));
        dict->values.push_back(std::move(v));
      }
      if (!IsOp(Op::kRBrace) && !CheckForgotComma(*dict->values.back())) return nullptr;
      if (!ExpectOp(Op::kRBrace)) return nullptr;
      return Done(dict);
    }
    if (IsKw(Kw::kFor)) {
      ExprPtr c = ParseComprehension("set", first, nullptr);
      if (!c || !ExpectOp(Op::kRBrace)) return nullptr;
      c->pos = open;
      return Done(c);
    }
    ExprPtr set = NewExpr(ExprKind::kSet, open);
    set->elts.push_back(first);
    if (AcceptOp(Op::kComma)) {
      bool trailing;
      if (!ParseElements(Op::kRBrace, &set->elts, &trailing)) return nullptr;
    } else if (!IsOp(Op::kRBrace) && !CheckForgotComma(*first)) {
      return nullptr;
    }
    if (!ExpectOp(Op::kRBrace)) return nullptr;
    return Done(set);
  }

  ExprPtr ParseNumber() {
    const Token& t = Next();
    ExprPtr c = NewExpr(ExprKind::kConstant, t.pos);
    std::string digits;
    digits.reserve(t.text.size());
    for (char ch : t.text) {
      if (ch != '_') digits.push_back(ch);
    }
    int base = 10;
    size_t skip = 0;
    if (digits.size() > 1 && digits[0] == '0') {
      char p = absl::ascii_tolower(digits[1]);
      if (p == 'x' || p == 'o' || p == 'b') {
        base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
        skip = 2;
      }
    }
    if (base == 10 && digits.find_first_of(".eE") != std::string::npos) {
      c->const_kind = Expr::ConstKind::kFloat;
      // strtod is correctly rounded and, in the "C" locale kiln runs in, uses '.'.
      c->float_value = std::strtod(digits.c_str(), nullptr);
      return c;
    }
    c->const_kind = Expr::ConstKind::kInt;
    c->int_text = std::string(t.text);
    uint64_t v = 0;
    for (size_t i = skip; i < digits.size(); ++i) {
      char ch = absl::ascii_tolower(digits[i]);
      uint64_t d = ch >= 'a' ? ch - 'a' + 10 : ch - '0';
      if (v > (static_cast<uint64_t>(INT64_MAX) - d) / base) {
        c->int_overflow = true;
        return c;
      }
      v = v * base + d;
    }
    c->int_value = static_cast<int64_t>(v);
    return c;
  }

  absl::string_view source_;
  TokenStream ts_;
  int max_depth_;
  size_t idx_ = 0;
  size_t next_comment_ = 0;
  // The next function definition is @I.pyfunc: its body is skipped (SkipBlock).
  bool skip_next_body_ = false;
  int depth_ = 0;
  Pos last_;
  bool failed_ = false;
  std::string error_message_;
  Pos error_pos_;
};

}  // namespace

bool IsPyFuncDecorator(const Expr& decorator) {
  return (decorator.kind == ExprKind::kName || decorator.kind == ExprKind::kAttribute) && decorator.name == "pyfunc";
}

absl::StatusOr<Module> Read(absl::string_view source, const std::string& filename,
                            ir::DiagnosticList* diags, const ReadOptions& options) {
  Parser parser(source, internal::Tokenize(source, options.max_depth), options);
  Module m;
  if (parser.ParseModule(&m)) return m;
  const Pos& p = parser.error_pos();
  if (diags) {
    ir::Span span;
    span.source = std::make_shared<const std::string>(filename);
    span.line = p.line;
    span.column = p.col;
    span.end_line = p.end_line;
    span.end_column = p.end_col;
    diags->Error(span, parser.error_message());
  }
  return absl::InvalidArgumentError(
      absl::StrCat(filename, ":", p.line, ":", p.col, ": ", parser.error_message()));
}

}  // namespace kiln::script::doc
