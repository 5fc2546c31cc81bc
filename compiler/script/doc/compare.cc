// Field-by-field comparison of Doc trees. Comments are compared by text only.
#include "compiler/script/doc/compare.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace kiln::script::doc {
namespace {

class Comparer {
 public:
  explicit Comparer(std::string* why) : why_(why) {}

  bool Module(const doc::Module& a, const doc::Module& b) {
    return Comments(a.leading_comments, b.leading_comments, 0) &&
           Stmts(a.body, b.body) &&
           Comments(a.trailing_comments, b.trailing_comments, 0);
  }

  bool E(const ExprPtr& a, const ExprPtr& b) {
    if (!a || !b) return (!a && !b) || Diff("missing expression", a ? a->pos : b->pos);
    return Expr(*a, *b);
  }

  bool Expr(const doc::Expr& a, const doc::Expr& b) {
    if (a.kind != b.kind) return Diff("expression kind", a.pos);
    if (a.name != b.name) return Diff(absl::StrCat("name '", a.name, "' vs '", b.name, "'"), a.pos);
    if (a.kind == ExprKind::kConstant) {
      if (a.const_kind != b.const_kind) return Diff("constant kind", a.pos);
      bool same = true;
      switch (a.const_kind) {
        case doc::Expr::ConstKind::kBool: same = a.bool_value == b.bool_value; break;
        case doc::Expr::ConstKind::kInt:
          same = a.int_overflow == b.int_overflow &&
                 (a.int_overflow ? a.int_text == b.int_text : a.int_value == b.int_value);
          break;
        case doc::Expr::ConstKind::kFloat:
          // Bitwise, so that NaN equals NaN and 0.0 differs from -0.0.
          same = std::memcmp(&a.float_value, &b.float_value, sizeof(double)) == 0;
          break;
        case doc::Expr::ConstKind::kStr: same = a.str_value == b.str_value; break;
        default: break;
      }
      if (!same) return Diff("constant value", a.pos);
    }
    if (a.ops != b.ops) return Diff("comparison operators", a.pos);
    if (a.lambda_args != b.lambda_args) return Diff("lambda arguments", a.pos);
    if (a.keywords.size() != b.keywords.size()) return Diff("keyword count", a.pos);
    for (size_t i = 0; i < a.keywords.size(); ++i) {
      if (a.keywords[i].arg != b.keywords[i].arg) return Diff("keyword name", a.pos);
      if (!E(a.keywords[i].value, b.keywords[i].value)) return false;
    }
    if (a.generators.size() != b.generators.size()) return Diff("generator count", a.pos);
    for (size_t i = 0; i < a.generators.size(); ++i) {
      const Generator &x = a.generators[i], &y = b.generators[i];
      if (!E(x.target, y.target) || !E(x.iter, y.iter) || !Es(x.ifs, y.ifs, a.pos)) return false;
    }
    return E(a.value, b.value) && E(a.slice, b.slice) && E(a.lower, b.lower) &&
           E(a.upper, b.upper) && E(a.step, b.step) && E(a.func, b.func) &&
           E(a.left, b.left) && E(a.right, b.right) && E(a.test, b.test) &&
           E(a.orelse, b.orelse) && E(a.format_spec, b.format_spec) && Es(a.args, b.args, a.pos) &&
           Es(a.values, b.values, a.pos) && Es(a.elts, b.elts, a.pos) &&
           Es(a.keys, b.keys, a.pos) && Es(a.comparators, b.comparators, a.pos);
  }

 private:
  bool Diff(const std::string& what, const Pos& pos) {
    if (why_ && why_->empty()) *why_ = absl::StrCat(what, " differs at line ", pos.line);
    return false;
  }

  bool Es(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b, const Pos& pos) {
    if (a.size() != b.size()) return Diff("element count", pos);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!E(a[i], b[i])) return false;
    }
    return true;
  }

  bool Comments(const std::vector<Comment>& a, const std::vector<Comment>& b, int line) {
    if (a.size() != b.size()) return Diff("comment count", Pos{line, 0, 0, 0});
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].text != b[i].text) return Diff("comment text", a[i].pos);
    }
    return true;
  }

  bool Stmts(const std::vector<StmtPtr>& a, const std::vector<StmtPtr>& b) {
    if (a.size() != b.size()) {
      return Diff("statement count", a.empty() ? Pos{} : a.front()->pos);
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Stmt(*a[i], *b[i])) return false;
    }
    return true;
  }

  bool Stmt(const doc::Stmt& a, const doc::Stmt& b) {
    if (a.kind != b.kind) return Diff("statement kind", a.pos);
    if (a.op != b.op || a.name != b.name || a.module != b.module || a.level != b.level ||
        a.type_params != b.type_params) {
      return Diff("statement field", a.pos);
    }
    if (!Comments(a.leading_comments, b.leading_comments, a.pos.line)) return false;
    if (a.keywords.size() != b.keywords.size()) return Diff("keyword count", a.pos);
    for (size_t i = 0; i < a.keywords.size(); ++i) {
      if (a.keywords[i].arg != b.keywords[i].arg) return Diff("keyword name", a.pos);
      if (!E(a.keywords[i].value, b.keywords[i].value)) return false;
    }
    if (a.items.size() != b.items.size()) return Diff("with items", a.pos);
    for (size_t i = 0; i < a.items.size(); ++i) {
      if (!E(a.items[i].context_expr, b.items[i].context_expr) ||
          !E(a.items[i].optional_vars, b.items[i].optional_vars)) {
        return false;
      }
    }
    if (a.args.size() != b.args.size()) return Diff("argument count", a.pos);
    for (size_t i = 0; i < a.args.size(); ++i) {
      const Arg &x = a.args[i], &y = b.args[i];
      if (x.name != y.name || x.kind != y.kind) return Diff("argument", x.pos);
      if (!E(x.annotation, y.annotation) || !E(x.default_value, y.default_value)) return false;
    }
    if (a.names.size() != b.names.size()) return Diff("names", a.pos);
    for (size_t i = 0; i < a.names.size(); ++i) {
      if (a.names[i].name != b.names[i].name || a.names[i].asname != b.names[i].asname) {
        return Diff("names", a.pos);
      }
    }
    return E(a.value, b.value) && E(a.test, b.test) && E(a.msg, b.msg) &&
           E(a.target, b.target) && E(a.annotation, b.annotation) && E(a.iter, b.iter) &&
           E(a.returns, b.returns) && Es(a.targets, b.targets, a.pos) &&
           Es(a.decorators, b.decorators, a.pos) && Es(a.bases, b.bases, a.pos) &&
           Stmts(a.body, b.body) && Stmts(a.orelse, b.orelse);
  }

  std::string* why_;
};

}  // namespace

bool StructurallyEqual(const Module& a, const Module& b, std::string* why) {
  if (why) why->clear();
  return Comparer(why).Module(a, b);
}

bool StructurallyEqual(const Expr& a, const Expr& b, std::string* why) {
  if (why) why->clear();
  return Comparer(why).Expr(a, b);
}

}  // namespace kiln::script::doc
