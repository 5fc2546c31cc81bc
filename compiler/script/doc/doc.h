// The Doc AST: the subset of Python that TVMScript is written in, with a position on every node.
// The tokenizer/reader (reader.h) produces it from text; the TVMScript parser consumes it; the
// printer builds it and renders it back to text (printer.h). It mirrors Python's `ast` module
// names so that TVMScript's specification reads directly onto it.
#ifndef KILN_COMPILER_SCRIPT_DOC_DOC_H_
#define KILN_COMPILER_SCRIPT_DOC_DOC_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::script::doc {

// 1-based line and column of the first character; end is one past the last character.
struct Pos {
  int line = 0, col = 0, end_line = 0, end_col = 0;
};

// ------------------------------ expressions ------------------------------
enum class ExprKind {
  kName, kConstant, kAttribute, kSubscript, kSlice, kCall, kBinOp, kUnaryOp, kBoolOp,
  kCompare, kIfExp, kLambda, kTuple, kList, kDict, kSet, kComprehension, kStarred,
  kJoinedStr, kFormattedValue,  // an f-string and one of its replacement fields
};

struct Expr;
using ExprPtr = std::shared_ptr<Expr>;

struct Keyword {
  std::string arg;  // empty for **kwargs
  ExprPtr value;
  Pos pos;
};

// Generators of a comprehension: for target in iter if conds...
struct Generator {
  ExprPtr target, iter;
  std::vector<ExprPtr> ifs;
};

struct Expr {
  ExprKind kind;
  Pos pos;

  // kName: id; kAttribute: attr; kBinOp/kUnaryOp/kBoolOp: operator spelling ("+", "//", "not",
  // "and", "-", "~", "**", "@", ...); kComprehension: "list" | "set" | "dict" | "generator".
  std::string name;

  // kConstant
  enum class ConstKind { kNone, kBool, kInt, kFloat, kStr, kEllipsis } const_kind = ConstKind::kNone;
  bool bool_value = false;
  int64_t int_value = 0;
  bool int_overflow = false;   // literal did not fit int64; int_text keeps its digits
  std::string int_text;        // the literal as written (for big ints)
  double float_value = 0;
  std::string str_value;

  // Children, by kind:
  //   kAttribute: value = operand
  //   kSubscript: value = operand, slice = index (a kTuple when several)
  //   kSlice: lower/upper/step (each may be null)
  //   kCall: func, args, keywords
  //   kBinOp: left, right;  kUnaryOp: operand (=value);  kBoolOp: values
  //   kCompare: left, ops (as strings: "<", "==", "is not", "in", ...), comparators
  //   kIfExp: test, body (=value), orelse
  //   kLambda: lambda_args (names), body (=value)
  //   kTuple/kList/kSet: elts;  kDict: keys, values (values index-aligned)
  //   kComprehension: elt (=value; for dicts key=left, value=right), generators
  //   kStarred: value
  //   kJoinedStr: values (str constants and kFormattedValue fields, in order; the reader never
  //     makes one without a field)
  //   kFormattedValue: value, conversion ("r", "s", "a" or empty) in `name`, format_spec (a
  //     kJoinedStr, possibly without values; null when there is no ':')
  ExprPtr value, slice, lower, upper, step, func, left, right, test, orelse, format_spec;
  std::vector<ExprPtr> args, values, elts, keys, comparators;
  std::vector<Keyword> keywords;
  std::vector<std::string> ops;
  std::vector<std::string> lambda_args;
  std::vector<Generator> generators;
  bool parenthesized = false;  // kTuple written with parentheses

  explicit Expr(ExprKind k) : kind(k) {}
};

// ------------------------------ statements ------------------------------
enum class StmtKind {
  kExpr, kAssign, kAnnAssign, kAugAssign, kReturn, kIf, kFor, kWhile, kWith, kAssert, kPass,
  kBreak, kContinue, kFunctionDef, kClassDef, kImport, kImportFrom, kDelete, kGlobal, kNonlocal,
};

struct Stmt;
using StmtPtr = std::shared_ptr<Stmt>;

struct Arg {
  std::string name;
  ExprPtr annotation;  // may be null
  ExprPtr default_value;  // may be null
  Pos pos;
  enum class Kind { kPositional, kVarArgs, kKeywordOnly, kKwArgs } kind = Kind::kPositional;
};

struct Alias {  // import a.b as c
  std::string name, asname;
  Pos pos;
};

struct WithItem {
  ExprPtr context_expr;
  ExprPtr optional_vars;  // may be null
};

// A comment on its own line, kept so the printer/parser can see "# with T.sblock("root"):".
struct Comment {
  std::string text;  // without the leading '#' and one space after it (the writer adds "# ")
  Pos pos;
  // An empty line in place of the comment (the printer's separator after header comments).
  bool blank_line = false;
};

struct Stmt {
  StmtKind kind;
  Pos pos;

  // kExpr: value;  kReturn: value (may be null);  kAssert: test, msg (may be null)
  // kAssign: targets (chained a = b = v gives several), value
  // kAnnAssign: target, annotation, value (may be null)
  // kAugAssign: target, op (e.g. "+"), value
  // kIf/kWhile: test, body, orelse;  kFor: target, iter, body, orelse
  // kWith: items, body
  // kFunctionDef: name, args, returns, body, decorators, type_params (PEP 695 names)
  // kClassDef: name, bases, keywords, body, decorators
  // kImport: names;  kImportFrom: module, names, level
  // kDelete: targets;  kGlobal/kNonlocal: names (as Alias with only name set)
  ExprPtr value, test, msg, target, annotation, iter, returns;
  std::string op, name, module;
  int level = 0;
  std::vector<ExprPtr> targets, decorators, bases;
  std::vector<Keyword> keywords;
  std::vector<StmtPtr> body, orelse;
  std::vector<WithItem> items;
  std::vector<Arg> args;
  std::vector<Alias> names;
  std::vector<std::string> type_params;
  // Comments that stand on their own lines just before this statement.
  std::vector<Comment> leading_comments;
  // kFunctionDef decorated @I.pyfunc (IsPyFuncDecorator): a Python function TVMScript keeps as
  // text (TVM's BasePyModule methods). Its decorators, name and parameters are read as usual;
  // `source` is the whole definition as written, decorators included, with the first line's
  // indentation removed and whitespace-only lines emptied, and `body` stays empty.
  std::string source;

  explicit Stmt(StmtKind k) : kind(k) {}
};

// Whether a decorator is `pyfunc` or `X.pyfunc` (@I.pyfunc): its function's body is Python
// that TVMScript does not read, kept as text in Stmt::source.
bool IsPyFuncDecorator(const Expr& decorator);

struct Module {
  std::vector<StmtPtr> body;
  std::vector<Comment> leading_comments;  // comments before the first statement (header)
  std::vector<Comment> trailing_comments;  // comments after the last statement
};

}  // namespace kiln::script::doc

#endif  // KILN_COMPILER_SCRIPT_DOC_DOC_H_
