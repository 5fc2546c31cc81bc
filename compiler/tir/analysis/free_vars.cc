#include "compiler/tir/analysis/free_vars.h"

#include <unordered_set>

#include "compiler/tir/functor.h"

namespace kiln::tir {
namespace {

using namespace ir;  // NOLINT

class Collector : public StmtExprVisitor {
 public:
  std::vector<Var> order;
  std::unordered_set<const VarNode*> defined, seen;

  void VisitExpr_(const VarNode* op) override { Use(op); }
  void VisitExpr_(const SizeVarNode* op) override { Use(op); }
  void VisitExpr_(const LetNode* op) override {
    VisitExpr(op->value);
    defined.insert(op->var.get());
    VisitExpr(op->body);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Use(op->buffer->data.get());
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    Use(op->buffer->data.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const LetStmtNode* op) override {
    VisitExpr(op->value);
    defined.insert(op->var.get());
    VisitStmt(op->body);
  }
  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    defined.insert(op->loop_var.get());
    VisitStmt(op->body);
  }
  void VisitStmt_(const AllocBufferNode* op) override {
    for (const PrimExpr& e : op->buffer->shape) VisitExpr(e);
    defined.insert(op->buffer->data.get());
    VisitStmt(op->body);
  }

 private:
  void Use(const VarNode* v) {
    if (defined.count(v) || !seen.insert(v).second) return;
    order.push_back(GetRef<Var>(v));
  }
};

}  // namespace

std::vector<Var> FreeVars(const Stmt& body, const std::vector<Var>& bound) {
  Collector c;
  for (const Var& v : bound) c.defined.insert(v.get());
  c.VisitStmt(body);
  return c.order;
}

}  // namespace kiln::tir
