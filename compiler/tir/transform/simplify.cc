// Simplify: runs the arithmetic simplifier over a function with the ranges of loop variables (and
// the bounds of let-bound values) in scope, so that index arithmetic left by block lowering and
// flattening collapses, conditions decided by the loop ranges vanish, and later passes (vectorize)
// see canonical linear indices. Statement-level clean-ups:
//   * if with a constant condition -> the taken branch;
//   * assert with a provably true condition -> removed (a provably false one stays: it fails at
//     run time with its message, as written);
//   * loops with a constant extent <= 0 -> removed;
//   * no-op Evaluate(constant) statements dropped from sequences.
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

bool IsNoOp(const Stmt& s) {
  const auto* e = s.as<EvaluateNode>();
  return e != nullptr && (e->value.as<IntImmNode>() != nullptr || e->value.as<FloatImmNode>() != nullptr);
}

class StmtSimplifier : public StmtExprMutator {
 public:
  PrimExpr VisitExpr(const PrimExpr& e) override { return analyzer_.Simplify(e); }

 private:
  Stmt VisitStmt_(const ForNode* op) override {
    PrimExpr mn = VisitExpr(op->min), ext = VisitExpr(op->extent);
    if (const auto* imm = ext.as<IntImmNode>(); imm && imm->value <= 0) return Evaluate(IntImm(DataType::Int(32), 0));
    // With or without a step, the loop variable stays within [min, min + extent).
    if (op->loop_var.dtype().is_int()) analyzer_.BindRange(op->loop_var, mn, ext);
    Stmt body = VisitStmt(op->body);
    PrimExpr step = op->step.defined() ? VisitExpr(op->step) : op->step;
    if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body) && step.same_as(op->step)) {
      return GetRef<Stmt>(op);
    }
    For f = GetRef<For>(op);
    ForNode* n = f.CopyOnWrite();
    n->min = mn;
    n->extent = ext;
    n->step = step;
    n->body = body;
    return f;
  }
  Stmt VisitStmt_(const LetStmtNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    if (value.dtype().is_int() && value.dtype().is_scalar()) {
      analyzer_.BindBound(op->var, analyzer_.GetConstIntBound(value));
    }
    Stmt body = VisitStmt(op->body);
    if (value.same_as(op->value) && body.same_as(op->body)) return GetRef<Stmt>(op);
    return LetStmt(op->var, value, body, op->span);
  }
  Stmt VisitStmt_(const IfThenElseNode* op) override {
    PrimExpr cond = VisitExpr(op->condition);
    if (const auto* imm = cond.as<IntImmNode>()) {
      if (imm->value) return VisitStmt(op->then_case);
      return op->else_case.defined() ? VisitStmt(op->else_case) : Evaluate(IntImm(DataType::Int(32), 0));
    }
    Stmt then_case = VisitStmt(op->then_case);
    Stmt else_case = op->else_case.defined() ? VisitStmt(op->else_case) : Stmt();
    if (else_case.defined() && IsNoOp(else_case)) else_case = Stmt();
    return IfThenElse(cond, then_case, else_case, op->span);
  }
  Stmt VisitStmt_(const AssertStmtNode* op) override {
    PrimExpr cond = VisitExpr(op->condition);
    const auto* imm = cond.as<IntImmNode>();
    Stmt body = op->body.defined() ? VisitStmt(op->body) : Stmt();
    if (imm && imm->value) return body.defined() ? body : Evaluate(IntImm(DataType::Int(32), 0));
    AssertStmt a = GetRef<AssertStmt>(op);
    AssertStmtNode* n = a.CopyOnWrite();
    n->condition = cond;
    n->body = body;
    return a;
  }
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    std::vector<Stmt> seq;
    for (const Stmt& s : op->seq) {
      Stmt v = VisitStmt(s);
      if (!IsNoOp(v)) seq.push_back(v);
    }
    return SeqStmt::Flatten(seq);
  }
  Stmt VisitStmt_(const AllocBufferNode* op) override {
    Stmt body = VisitStmt(op->body);
    if (body.same_as(op->body)) return GetRef<Stmt>(op);
    return AllocBuffer(op->buffer, body, op->annotations, op->span);
  }

  arith::Analyzer analyzer_;
};

}  // namespace

PrimFunc Simplify(const PrimFunc& f) {
  StmtSimplifier s;
  Stmt body = s.VisitStmt(f->body);
  return WithBody(f, body);
}

}  // namespace kiln::tir::transform
