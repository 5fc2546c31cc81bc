// Doc node factories; see doc_builder.h.
#include "compiler/script/printer/doc_builder.h"

#include <memory>

namespace kiln::script::printer {
namespace {

using doc::Expr;
using doc::ExprKind;
using doc::Stmt;
using doc::StmtKind;

ExprPtr NewExpr(ExprKind k) { return std::make_shared<Expr>(k); }
StmtPtr NewStmt(StmtKind k) { return std::make_shared<Stmt>(k); }

ExprPtr Const(Expr::ConstKind k) {
  ExprPtr e = NewExpr(ExprKind::kConstant);
  e->const_kind = k;
  return e;
}

}  // namespace

ExprPtr Id(std::string name) {
  ExprPtr e = NewExpr(ExprKind::kName);
  e->name = std::move(name);
  return e;
}

ExprPtr LambdaE(std::vector<std::string> args, ExprPtr body) {
  ExprPtr e = NewExpr(ExprKind::kLambda);
  e->lambda_args = std::move(args);
  e->value = std::move(body);
  return e;
}

ExprPtr Attr(ExprPtr value, std::string attr) {
  ExprPtr e = NewExpr(ExprKind::kAttribute);
  e->value = std::move(value);
  e->name = std::move(attr);
  return e;
}

ExprPtr CallE(ExprPtr func, std::vector<ExprPtr> args, Kwargs kwargs) {
  ExprPtr e = NewExpr(ExprKind::kCall);
  e->func = std::move(func);
  e->args = std::move(args);
  for (auto& kv : kwargs) {
    doc::Keyword k;
    k.arg = std::move(kv.first);
    k.value = std::move(kv.second);
    e->keywords.push_back(std::move(k));
  }
  return e;
}

ExprPtr IntLit(int64_t v) {
  ExprPtr e = Const(Expr::ConstKind::kInt);
  e->int_value = v;
  return e;
}

ExprPtr FloatLit(double v) {
  ExprPtr e = Const(Expr::ConstKind::kFloat);
  e->float_value = v;
  return e;
}

ExprPtr StrLit(std::string s) {
  ExprPtr e = Const(Expr::ConstKind::kStr);
  e->str_value = std::move(s);
  return e;
}

ExprPtr BoolLit(bool b) {
  ExprPtr e = Const(Expr::ConstKind::kBool);
  e->bool_value = b;
  return e;
}

ExprPtr NoneLit() { return Const(Expr::ConstKind::kNone); }

ExprPtr BinOp(std::string op, ExprPtr l, ExprPtr r) {
  ExprPtr e = NewExpr(ExprKind::kBinOp);
  e->name = std::move(op);
  e->left = std::move(l);
  e->right = std::move(r);
  return e;
}

ExprPtr UnaryOp(std::string op, ExprPtr x) {
  ExprPtr e = NewExpr(ExprKind::kUnaryOp);
  e->name = std::move(op);
  e->value = std::move(x);
  return e;
}

ExprPtr BoolOpE(std::string op, std::vector<ExprPtr> values) {
  ExprPtr e = NewExpr(ExprKind::kBoolOp);
  e->name = std::move(op);
  e->values = std::move(values);
  return e;
}

ExprPtr Compare(ExprPtr l, std::string op, ExprPtr r) {
  ExprPtr e = NewExpr(ExprKind::kCompare);
  e->left = std::move(l);
  e->ops.push_back(std::move(op));
  e->comparators.push_back(std::move(r));
  return e;
}

ExprPtr TupleE(std::vector<ExprPtr> elts) {
  ExprPtr e = NewExpr(ExprKind::kTuple);
  e->elts = std::move(elts);
  e->parenthesized = true;
  return e;
}

ExprPtr ListE(std::vector<ExprPtr> elts) {
  ExprPtr e = NewExpr(ExprKind::kList);
  e->elts = std::move(elts);
  return e;
}

ExprPtr DictE(std::vector<ExprPtr> keys, std::vector<ExprPtr> values) {
  ExprPtr e = NewExpr(ExprKind::kDict);
  e->keys = std::move(keys);
  e->values = std::move(values);
  return e;
}

ExprPtr Index(ExprPtr value, std::vector<ExprPtr> indices) {
  ExprPtr e = NewExpr(ExprKind::kSubscript);
  e->value = std::move(value);
  if (indices.size() == 1) {
    e->slice = std::move(indices[0]);
  } else {
    ExprPtr t = TupleE(std::move(indices));
    // A[i, j] is a bare tuple; A[()] needs the parentheses.
    t->parenthesized = t->elts.empty();
    e->slice = std::move(t);
  }
  return e;
}

ExprPtr SliceE(ExprPtr lower, ExprPtr upper, ExprPtr step) {
  ExprPtr e = NewExpr(ExprKind::kSlice);
  e->lower = std::move(lower);
  e->upper = std::move(upper);
  e->step = std::move(step);
  return e;
}

StmtPtr ExprStmt(ExprPtr e) {
  StmtPtr s = NewStmt(StmtKind::kExpr);
  s->value = std::move(e);
  return s;
}

StmtPtr Assign(ExprPtr target, ExprPtr value) {
  StmtPtr s = NewStmt(StmtKind::kAssign);
  s->targets.push_back(std::move(target));
  s->value = std::move(value);
  return s;
}

StmtPtr AnnAssign(ExprPtr target, ExprPtr annotation, ExprPtr value) {
  StmtPtr s = NewStmt(StmtKind::kAnnAssign);
  s->target = std::move(target);
  s->annotation = std::move(annotation);
  s->value = std::move(value);
  return s;
}

StmtPtr ForS(ExprPtr target, ExprPtr iter, std::vector<StmtPtr> body) {
  StmtPtr s = NewStmt(StmtKind::kFor);
  s->target = std::move(target);
  s->iter = std::move(iter);
  s->body = std::move(body);
  return s;
}

StmtPtr WhileS(ExprPtr test, std::vector<StmtPtr> body) {
  StmtPtr s = NewStmt(StmtKind::kWhile);
  s->test = std::move(test);
  s->body = std::move(body);
  return s;
}

StmtPtr IfS(ExprPtr test, std::vector<StmtPtr> body, std::vector<StmtPtr> orelse) {
  StmtPtr s = NewStmt(StmtKind::kIf);
  s->test = std::move(test);
  s->body = std::move(body);
  s->orelse = std::move(orelse);
  return s;
}

StmtPtr WithS(ExprPtr context, ExprPtr as_var, std::vector<StmtPtr> body) {
  StmtPtr s = NewStmt(StmtKind::kWith);
  doc::WithItem item;
  item.context_expr = std::move(context);
  item.optional_vars = std::move(as_var);
  s->items.push_back(std::move(item));
  s->body = std::move(body);
  return s;
}

StmtPtr AssertS(ExprPtr test, ExprPtr msg) {
  StmtPtr s = NewStmt(StmtKind::kAssert);
  s->test = std::move(test);
  s->msg = std::move(msg);
  return s;
}

StmtPtr ReturnS(ExprPtr value) {
  StmtPtr s = NewStmt(StmtKind::kReturn);
  s->value = std::move(value);
  return s;
}


StmtPtr FunctionDefS(std::string name, std::vector<doc::Arg> args, std::vector<ExprPtr> decorators,
                     ExprPtr returns, std::vector<StmtPtr> body) {
  StmtPtr s = NewStmt(StmtKind::kFunctionDef);
  s->name = std::move(name);
  s->args = std::move(args);
  s->decorators = std::move(decorators);
  s->returns = std::move(returns);
  s->body = std::move(body);
  return s;
}

StmtPtr ClassDefS(std::string name, std::vector<ExprPtr> decorators, std::vector<StmtPtr> body) {
  StmtPtr s = NewStmt(StmtKind::kClassDef);
  s->name = std::move(name);
  s->decorators = std::move(decorators);
  s->body = std::move(body);
  return s;
}

doc::Arg ArgOf(std::string name, ExprPtr annotation) {
  doc::Arg a;
  a.name = std::move(name);
  a.annotation = std::move(annotation);
  return a;
}

}  // namespace kiln::script::printer
