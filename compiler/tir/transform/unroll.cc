// UnrollLoops: `for v in T.unroll(n)` with a constant extent n <= max_extent and unit step becomes
// n copies of the body with v replaced by min, min + 1, ... (each copy gets fresh variables for
// what it defines, so no variable is defined twice). Loops whose body contains break/continue
// (which would then escape to an enclosing loop), non-constant extents and longer loops stay
// serial loops, which is always correct. Inner loops are unrolled first.
#include <optional>
#include <vector>

#include "compiler/tir/functor.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

// Whether a break/continue in `s` belongs to a loop enclosing `s`.
bool HasEscapingJump(const Stmt& s) {
  struct Finder : StmtExprVisitor {
    bool found = false;
    void VisitStmt_(const BreakNode*) override { found = true; }
    void VisitStmt_(const ContinueNode*) override { found = true; }
    // Jumps inside a nested loop belong to it.
    void VisitStmt_(const ForNode*) override {}
    void VisitStmt_(const WhileNode*) override {}
  } finder;
  finder.VisitStmt(s);
  return finder.found;
}

class Unroller : public StmtExprMutator {
 public:
  explicit Unroller(int max_extent) : max_extent_(max_extent) {}

 private:
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt body = VisitStmt(op->body);
    if (op->kind != ForKind::kUnrolled) return WithLoopBody(op, body);
    std::optional<int64_t> trips = ConstUnitStepExtent(op);
    if (trips && *trips <= max_extent_ && !HasEscapingJump(body)) {
      std::vector<Stmt> copies;
      DataType t = op->loop_var.dtype();
      for (int64_t k = 0; k < *trips; ++k) {
        PrimExpr value = k == 0 ? op->min : PrimExpr(Add(op->min, IntImm(t, k)));
        copies.push_back(CopyWithFreshDefs(body, {{op->loop_var.get(), value}}));
      }
      return SeqStmt::Flatten(copies);
    }
    return AsSerialLoop(op, body);
  }

  int max_extent_;
};

}  // namespace

PrimFunc UnrollLoops(const PrimFunc& f, int max_extent) {
  Unroller u(max_extent);
  Stmt body = u.VisitStmt(f->body);
  return WithBody(f, body);
}

}  // namespace kiln::tir::transform
