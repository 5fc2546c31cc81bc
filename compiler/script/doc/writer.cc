// Doc AST → Python text. Parentheses come from precedence alone (the Doc keeps no record of the
// user's), so the output is canonical: writing, reading and writing again gives the same text.
#include "compiler/script/doc/writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kiln::script::doc {
namespace {

// Python's precedence levels, loosest first.
enum Prec {
  kLambdaPrec,
  kIfExpPrec,
  kOrPrec,
  kAndPrec,
  kNotPrec,
  kComparePrec,
  kBitOrPrec,
  kXorPrec,
  kBitAndPrec,
  kShiftPrec,
  kArithPrec,
  kTermPrec,
  kUnaryPrec,
  kPowerPrec,
  kAtomPrec,
};

int BinaryPrec(const std::string& op) {
  if (op == "|") return kBitOrPrec;
  if (op == "^") return kXorPrec;
  if (op == "&") return kBitAndPrec;
  if (op == "<<" || op == ">>") return kShiftPrec;
  if (op == "+" || op == "-") return kArithPrec;
  if (op == "**") return kPowerPrec;
  return kTermPrec;  // * / // % @
}

bool IsNegativeNumber(const Expr& e) {
  if (e.kind != ExprKind::kConstant) return false;
  if (e.const_kind == Expr::ConstKind::kInt) return !e.int_overflow && e.int_value < 0;
  if (e.const_kind == Expr::ConstKind::kFloat) return std::signbit(e.float_value);
  return false;
}

int PrecOf(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kLambda: return kLambdaPrec;
    case ExprKind::kIfExp: return kIfExpPrec;
    case ExprKind::kBoolOp: return e.name == "or" ? kOrPrec : kAndPrec;
    case ExprKind::kUnaryOp: return e.name == "not" ? kNotPrec : kUnaryPrec;
    case ExprKind::kCompare: return kComparePrec;
    case ExprKind::kBinOp: return BinaryPrec(e.name);
    case ExprKind::kStarred: return kBitOrPrec;
    case ExprKind::kConstant: return IsNegativeNumber(e) ? kUnaryPrec : kAtomPrec;
    default: return kAtomPrec;
  }
}

void AppendUtf8Escape(unsigned char c, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->append("\\x");
  out->push_back(kHex[c >> 4]);
  out->push_back(kHex[c & 15]);
}

class Writer {
 public:
  explicit Writer(const WriteOptions& options) : options_(options) {}

  std::string ModuleText(const Module& m) {
    Comments(m.leading_comments, 0);
    if (!m.leading_comments.empty() && !m.body.empty()) out_.push_back('\n');
    Body(m.body, 0);
    Comments(m.trailing_comments, 0);
    // The blank line after a final function definition separates nothing.
    while (out_.size() >= 2 && out_[out_.size() - 1] == '\n' && out_[out_.size() - 2] == '\n') out_.pop_back();
    return std::move(out_);
  }

  std::string ExprText(const Expr& e) {
    Expr_(e, kLambdaPrec);
    return std::move(out_);
  }

 private:
  void Indent(int level) { out_.append(static_cast<size_t>(level * options_.indent_spaces), ' '); }

  void Comments(const std::vector<Comment>& comments, int level) {
    for (const Comment& c : comments) {
      if (c.blank_line) {
        out_.push_back('\n');
        continue;
      }
      for (absl::string_view line : absl::StrSplit(c.text, '\n')) {
        Indent(level);
        out_.push_back('#');
        if (!line.empty()) {
          out_.push_back(' ');
          out_.append(line.data(), line.size());
        }
        out_.push_back('\n');
      }
    }
  }

  // As in TVM's printer, the only blank lines are the one after each function definition (at any
  // depth: a nested def is followed by one too) and the one after the header comments; a class
  // or a decorator is not set apart.
  void Body(const std::vector<StmtPtr>& body, int level) {
    for (const StmtPtr& s : body) Statement(*s, level);
  }

  void Block(const std::vector<StmtPtr>& body, int level) {
    out_.append(":\n");
    if (body.empty()) {
      Indent(level);
      out_.append("pass\n");
      return;
    }
    Body(body, level);
  }

  void Statement(const Stmt& s, int level) {
    Comments(s.leading_comments, level);
    if (s.kind == StmtKind::kFunctionDef && !s.source.empty()) {
      // A Python function kept as text (@I.pyfunc): as written, indented to this level.
      for (absl::string_view line : absl::StrSplit(absl::string_view(s.source).substr(0, s.source.size() - 1), '\n')) {
        if (!line.empty()) Indent(level);
        out_.append(line.data(), line.size());
        out_.push_back('\n');
      }
      out_.push_back('\n');
      return;
    }
    for (const ExprPtr& d : s.decorators) {
      Indent(level);
      out_.push_back('@');
      Expr_(*d, kLambdaPrec);
      out_.push_back('\n');
    }
    Indent(level);
    switch (s.kind) {
      case StmtKind::kExpr:
        Expr_(*s.value, kLambdaPrec);
        break;
      case StmtKind::kAssign:
        for (const ExprPtr& t : s.targets) {
          Target(*t);
          out_.append(" = ");
        }
        Expr_(*s.value, kLambdaPrec);
        break;
      case StmtKind::kAnnAssign:
        Target(*s.target);
        out_.append(": ");
        Expr_(*s.annotation, kLambdaPrec);
        if (s.value) {
          out_.append(" = ");
          Expr_(*s.value, kLambdaPrec);
        }
        break;
      case StmtKind::kAugAssign:
        Target(*s.target);
        absl::StrAppend(&out_, " ", s.op, "= ");
        Expr_(*s.value, kLambdaPrec);
        break;
      case StmtKind::kReturn:
        out_.append("return");
        if (s.value) {
          out_.push_back(' ');
          Expr_(*s.value, kLambdaPrec);
        }
        break;
      case StmtKind::kIf:
        If(s, level);
        return;
      case StmtKind::kFor:
        out_.append("for ");
        Target(*s.target);
        out_.append(" in ");
        Expr_(*s.iter, kLambdaPrec);
        Block(s.body, level + 1);
        Else(s.orelse, level);
        return;
      case StmtKind::kWhile:
        out_.append("while ");
        Expr_(*s.test, kLambdaPrec);
        Block(s.body, level + 1);
        Else(s.orelse, level);
        return;
      case StmtKind::kWith:
        out_.append("with ");
        for (size_t i = 0; i < s.items.size(); ++i) {
          if (i) out_.append(", ");
          Expr_(*s.items[i].context_expr, kLambdaPrec);
          if (s.items[i].optional_vars) {
            out_.append(" as ");
            // Unlike other targets, a tuple here needs parentheses (commas separate items).
            Expr_(*s.items[i].optional_vars, kBitOrPrec);
          }
        }
        Block(s.body, level + 1);
        return;
      case StmtKind::kAssert:
        out_.append("assert ");
        Expr_(*s.test, kLambdaPrec);
        if (s.msg) {
          out_.append(", ");
          Expr_(*s.msg, kLambdaPrec);
        }
        break;
      case StmtKind::kPass: out_.append("pass"); break;
      case StmtKind::kBreak: out_.append("break"); break;
      case StmtKind::kContinue: out_.append("continue"); break;
      case StmtKind::kFunctionDef:
        FunctionDef(s, level);
        return;
      case StmtKind::kClassDef:
        absl::StrAppend(&out_, "class ", s.name);
        if (!s.bases.empty() || !s.keywords.empty()) {
          out_.push_back('(');
          Arguments(s.bases, s.keywords);
          out_.push_back(')');
        }
        Block(s.body, level + 1);
        return;
      case StmtKind::kImport:
        out_.append("import ");
        Aliases(s.names);
        break;
      case StmtKind::kImportFrom:
        out_.append("from ");
        out_.append(static_cast<size_t>(s.level), '.');
        absl::StrAppend(&out_, s.module, " import ");
        Aliases(s.names);
        break;
      case StmtKind::kDelete:
        out_.append("del ");
        for (size_t i = 0; i < s.targets.size(); ++i) {
          if (i) out_.append(", ");
          Expr_(*s.targets[i], kBitOrPrec);
        }
        break;
      case StmtKind::kGlobal:
      case StmtKind::kNonlocal:
        out_.append(s.kind == StmtKind::kGlobal ? "global " : "nonlocal ");
        for (size_t i = 0; i < s.names.size(); ++i) {
          if (i) out_.append(", ");
          out_.append(s.names[i].name);
        }
        break;
    }
    out_.push_back('\n');
  }

  // Like TVM's printer, an else branch holding an `if` is written as `else:` + nested `if`
  // rather than `elif`; both read back to the same tree.
  void If(const Stmt& s, int level) {
    out_.append("if ");
    Expr_(*s.test, kLambdaPrec);
    Block(s.body, level + 1);
    Else(s.orelse, level);
  }

  void Else(const std::vector<StmtPtr>& orelse, int level) {
    if (orelse.empty()) return;
    Indent(level);
    out_.append("else");
    Block(orelse, level + 1);
  }

  void Aliases(const std::vector<Alias>& names) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (i) out_.append(", ");
      out_.append(names[i].name);
      if (!names[i].asname.empty()) absl::StrAppend(&out_, " as ", names[i].asname);
    }
  }

  void FunctionDef(const Stmt& s, int level) {
    absl::StrAppend(&out_, "def ", s.name);
    if (!s.type_params.empty()) {
      out_.push_back('[');
      for (size_t i = 0; i < s.type_params.size(); ++i) {
        if (i) out_.append(", ");
        out_.append(s.type_params[i]);
      }
      out_.push_back(']');
    }
    out_.push_back('(');
    bool star_written = false;
    for (size_t i = 0; i < s.args.size(); ++i) {
      const Arg& a = s.args[i];
      if (i) out_.append(", ");
      switch (a.kind) {
        case Arg::Kind::kVarArgs:
          out_.push_back('*');
          star_written = true;
          break;
        case Arg::Kind::kKwArgs: out_.append("**"); break;
        case Arg::Kind::kKeywordOnly:
          if (!star_written) out_.append("*, ");
          star_written = true;
          break;
        case Arg::Kind::kPositional: break;
      }
      out_.append(a.name);
      if (a.annotation) {
        out_.append(": ");
        Expr_(*a.annotation, kLambdaPrec);
      }
      if (a.default_value) {
        out_.append(a.annotation ? " = " : "=");
        Expr_(*a.default_value, kLambdaPrec);
      }
    }
    out_.push_back(')');
    if (s.returns) {
      out_.append(" -> ");
      Expr_(*s.returns, kLambdaPrec);
    }
    Block(s.body, level + 1);
    out_.push_back('\n');
  }

  // An assignment or loop target: a tuple is written without parentheses at the top level.
  void Target(const Expr& e) {
    if (e.kind == ExprKind::kTuple && !e.elts.empty()) {
      Elements(e.elts, kBitOrPrec);
      if (e.elts.size() == 1) out_.push_back(',');
      return;
    }
    Expr_(e, kBitOrPrec);
  }

  void Elements(const std::vector<ExprPtr>& elts, int prec) {
    for (size_t i = 0; i < elts.size(); ++i) {
      if (i) out_.append(", ");
      Expr_(*elts[i], prec);
    }
  }

  void Arguments(const std::vector<ExprPtr>& args, const std::vector<Keyword>& keywords) {
    Elements(args, kLambdaPrec);
    for (size_t i = 0; i < keywords.size(); ++i) {
      if (i || !args.empty()) out_.append(", ");
      if (keywords[i].arg.empty()) {
        out_.append("**");
        Expr_(*keywords[i].value, kBitOrPrec);
      } else {
        absl::StrAppend(&out_, keywords[i].arg, "=");
        Expr_(*keywords[i].value, kLambdaPrec);
      }
    }
  }

  void SliceItem(const Expr& e) {
    if (e.kind != ExprKind::kSlice) {
      Expr_(e, kLambdaPrec);
      return;
    }
    if (e.lower) Expr_(*e.lower, kLambdaPrec);
    out_.push_back(':');
    if (e.upper) Expr_(*e.upper, kLambdaPrec);
    if (e.step) {
      out_.push_back(':');
      Expr_(*e.step, kLambdaPrec);
    }
  }

  void Constant(const Expr& e) {
    switch (e.const_kind) {
      case Expr::ConstKind::kNone: out_.append("None"); break;
      case Expr::ConstKind::kBool: out_.append(e.bool_value ? "True" : "False"); break;
      case Expr::ConstKind::kInt:
        if (e.int_overflow) {
          out_.append(e.int_text);
        } else {
          absl::StrAppend(&out_, e.int_value);
        }
        break;
      case Expr::ConstKind::kFloat: out_.append(FormatFloat(e.float_value)); break;
      case Expr::ConstKind::kStr: out_.append(QuoteString(e.str_value)); break;
      case Expr::ConstKind::kEllipsis: out_.append("..."); break;
    }
  }

  void Generators(const std::vector<Generator>& gens) {
    for (const Generator& g : gens) {
      out_.append(" for ");
      Target(*g.target);
      out_.append(" in ");
      Expr_(*g.iter, kOrPrec);
      for (const ExprPtr& c : g.ifs) {
        out_.append(" if ");
        Expr_(*c, kOrPrec);
      }
    }
  }

  void Comprehension(const Expr& e, const char* open, const char* close) {
    out_.append(open);
    if (e.name == "dict") {
      Expr_(*e.left, kLambdaPrec);
      out_.append(": ");
      Expr_(*e.right, kLambdaPrec);
    } else {
      Expr_(*e.value, kLambdaPrec);
    }
    Generators(e.generators);
    out_.append(close);
  }

  // `value[index]`, the slice items written with their own syntax.
  void Subscript(const Expr& e) {
    Expr_(*e.value, kAtomPrec);
    out_.push_back('[');
    if (e.slice->kind == ExprKind::kTuple && !e.slice->elts.empty()) {
      for (size_t i = 0; i < e.slice->elts.size(); ++i) {
        if (i) out_.append(", ");
        SliceItem(*e.slice->elts[i]);
      }
      if (e.slice->elts.size() == 1) out_.push_back(',');
    } else {
      SliceItem(*e.slice);
    }
    out_.push_back(']');
  }

  // A slice outside a subscript has no syntax; write the call that builds one.
  void SliceCall(const Expr& e) {
    out_.append("slice(");
    Expr_(e.lower ? *e.lower : NoneConstant(), kLambdaPrec);
    out_.append(", ");
    Expr_(e.upper ? *e.upper : NoneConstant(), kLambdaPrec);
    out_.append(", ");
    Expr_(e.step ? *e.step : NoneConstant(), kLambdaPrec);
    out_.push_back(')');
  }

  void CallExpr(const Expr& e) {
    Expr_(*e.func, kAtomPrec);
    if (e.args.size() == 1 && e.keywords.empty() &&
        e.args[0]->kind == ExprKind::kComprehension && e.args[0]->name == "generator") {
      // `f(x for x in y)`: a sole generator argument needs no parentheses of its own.
      out_.push_back('(');
      Comprehension(*e.args[0], "", "");
      out_.push_back(')');
      return;
    }
    out_.push_back('(');
    Arguments(e.args, e.keywords);
    out_.push_back(')');
  }

  // Operators: binary, unary, boolean, comparison chains and `a if c else b`, whose operands bind
  // at least as tightly as `prec` (the operation's own precedence).
  void Operation(const Expr& e, int prec) {
    switch (e.kind) {
      case ExprKind::kBinOp:
        if (e.name == "**") {
          Expr_(*e.left, kPowerPrec + 1);
          out_.append(" ** ");
          Expr_(*e.right, kUnaryPrec);
        } else {
          Expr_(*e.left, prec);
          absl::StrAppend(&out_, " ", e.name, " ");
          Expr_(*e.right, prec + 1);
        }
        break;
      case ExprKind::kUnaryOp:
        if (e.name == "not") {
          out_.append("not ");
          Expr_(*e.value, kNotPrec);
        } else {
          out_.append(e.name);
          Expr_(*e.value, kUnaryPrec);
        }
        break;
      case ExprKind::kBoolOp:
        for (size_t i = 0; i < e.values.size(); ++i) {
          if (i) absl::StrAppend(&out_, " ", e.name, " ");
          Expr_(*e.values[i], prec + 1);
        }
        break;
      case ExprKind::kCompare:
        Expr_(*e.left, kComparePrec + 1);
        for (size_t i = 0; i < e.ops.size() && i < e.comparators.size(); ++i) {
          absl::StrAppend(&out_, " ", e.ops[i], " ");
          Expr_(*e.comparators[i], kComparePrec + 1);
        }
        break;
      case ExprKind::kIfExp:
        Expr_(*e.value, kIfExpPrec + 1);
        out_.append(" if ");
        Expr_(*e.test, kIfExpPrec + 1);
        out_.append(" else ");
        Expr_(*e.orelse, kIfExpPrec);
        break;
      default:
        break;
    }
  }

  // Displays: tuples, lists, sets, dicts and comprehensions.
  void Display(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kTuple:
        out_.push_back('(');
        Elements(e.elts, kLambdaPrec);
        if (e.elts.size() == 1) out_.push_back(',');
        out_.push_back(')');
        break;
      case ExprKind::kList:
        out_.push_back('[');
        Elements(e.elts, kLambdaPrec);
        out_.push_back(']');
        break;
      case ExprKind::kSet:
        if (e.elts.empty()) {
          out_.append("set()");
          break;
        }
        out_.push_back('{');
        Elements(e.elts, kLambdaPrec);
        out_.push_back('}');
        break;
      case ExprKind::kDict:
        out_.push_back('{');
        for (size_t i = 0; i < e.keys.size() && i < e.values.size(); ++i) {
          if (i) out_.append(", ");
          Expr_(*e.keys[i], kLambdaPrec);
          out_.append(": ");
          Expr_(*e.values[i], kLambdaPrec);
        }
        out_.push_back('}');
        break;
      case ExprKind::kComprehension:
        Comprehension(e, e.name == "list"        ? "["
                         : e.name == "generator" ? "("
                                                 : "{",
                      e.name == "list" ? "]" : e.name == "generator" ? ")" : "}");
        break;
      default:
        break;
    }
  }

  // Writes `e`, parenthesized when it binds looser than `min_prec`.
  void Expr_(const Expr& e, int min_prec) {
    const int prec = PrecOf(e);
    const bool paren = prec < min_prec;
    if (paren) out_.push_back('(');
    switch (e.kind) {
      case ExprKind::kName: out_.append(e.name); break;
      case ExprKind::kConstant: Constant(e); break;
      case ExprKind::kAttribute: {
        const Expr& v = *e.value;
        bool wrap = v.kind == ExprKind::kConstant && v.const_kind == Expr::ConstKind::kInt &&
                    PrecOf(v) == kAtomPrec;
        if (wrap) out_.push_back('(');
        Expr_(v, kAtomPrec);
        if (wrap) out_.push_back(')');
        absl::StrAppend(&out_, ".", e.name);
        break;
      }
      case ExprKind::kSubscript: Subscript(e); break;
      case ExprKind::kSlice: SliceCall(e); break;
      case ExprKind::kCall: CallExpr(e); break;
      case ExprKind::kBinOp:
      case ExprKind::kUnaryOp:
      case ExprKind::kBoolOp:
      case ExprKind::kCompare:
      case ExprKind::kIfExp: Operation(e, prec); break;
      case ExprKind::kLambda:
        out_.append("lambda");
        for (size_t i = 0; i < e.lambda_args.size(); ++i) {
          out_.append(i ? ", " : " ");
          out_.append(e.lambda_args[i]);
        }
        out_.append(": ");
        Expr_(*e.value, kLambdaPrec);
        break;
      case ExprKind::kTuple:
      case ExprKind::kList:
      case ExprKind::kSet:
      case ExprKind::kDict:
      case ExprKind::kComprehension: Display(e); break;
      case ExprKind::kStarred:
        out_.push_back('*');
        Expr_(*e.value, kBitOrPrec);
        break;
      case ExprKind::kJoinedStr:
        out_.append("f\"");
        FStringBody(e);
        out_.push_back('"');
        break;
      case ExprKind::kFormattedValue:  // only inside a kJoinedStr; alone, as a one-field f-string
        out_.append("f\"");
        FStringField(e);
        out_.push_back('"');
        break;
    }
    if (paren) out_.push_back(')');
  }

  // The text between an f-string's quotes: literal text escaped as in a "..." string with the
  // braces doubled, and fields as `{expr!c:spec}`.
  void FStringBody(const Expr& joined) {
    for (const ExprPtr& part : joined.values) {
      if (part->kind == ExprKind::kFormattedValue) {
        FStringField(*part);
        continue;
      }
      const std::string quoted = QuoteString(part->str_value);
      for (size_t i = 1; i + 1 < quoted.size(); ++i) {
        if (quoted[i] == '{' || quoted[i] == '}') out_.push_back(quoted[i]);
        out_.push_back(quoted[i]);
      }
    }
  }

  void FStringField(const Expr& field) {
    out_.push_back('{');
    // A lambda's ':' would start the format spec, and a leading '{' would read as "{{".
    std::string text = Writer(options_).ExprText(*field.value);
    if (field.value->kind == ExprKind::kLambda) text = absl::StrCat("(", text, ")");
    if (!text.empty() && text[0] == '{') out_.push_back(' ');
    out_.append(text);
    if (!field.name.empty()) absl::StrAppend(&out_, "!", field.name);
    if (field.format_spec) {
      out_.push_back(':');
      FStringBody(*field.format_spec);
    }
    out_.push_back('}');
  }

  static const Expr& NoneConstant() {
    static const Expr* const kNone = new Expr(ExprKind::kConstant);
    return *kNone;
  }

  const WriteOptions& options_;
  std::string out_;
};

}  // namespace

std::string FormatFloat(double value) {
  if (std::isnan(value)) return "float(\"nan\")";
  if (std::isinf(value)) return value > 0 ? "1e999" : "-1e999";
  char buf[512];
  // TVM's printer: integral values in fixed notation with one decimal ("1.0", "-3.0"), all others
  // with 17 significant digits (%.17g), which reads back to the same double.
  if (std::nearbyint(value) == value) {
    std::snprintf(buf, sizeof(buf), "%.1f", value);
  } else {
    std::snprintf(buf, sizeof(buf), "%.17g", value);
  }
  return buf;
}

std::string QuoteString(const std::string& value) {
  std::string out = "\"";
  for (char ch : value) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          AppendUtf8Escape(c, &out);
        } else {
          out.push_back(ch);  // printable ASCII and UTF-8 sequences pass through
        }
    }
  }
  out += "\"";
  return out;
}

std::string Write(const Module& module, const WriteOptions& options) {
  return Writer(options).ModuleText(module);
}

std::string WriteExpr(const Expr& expr, const WriteOptions& options) {
  return Writer(options).ExprText(expr);
}

}  // namespace kiln::script::doc
