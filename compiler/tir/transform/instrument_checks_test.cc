#include <string>
#include <vector>

#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/functor.h"
#include "compiler/script/script.h"
#include "compiler/tir/transform/interp_check.h"
#include "compiler/tir/transform/passes.h"
#include "gtest/gtest.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

// What InstrumentChecks sees in the pipeline: the function after LowerSBlocks.
PrimFunc Lowered(const std::string& text) {
  absl::StatusOr<ObjectRef> r = script::ParseScript(text, "k.py");
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return PrimFunc();
  absl::StatusOr<PrimFunc> f = LowerSBlocks(Downcast<PrimFunc>(*r), "f");
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : PrimFunc();
}

struct Check {
  std::string message;  // values shown as {expression}
  bool guarded;         // under an IfThenElse the pass added around the check
};

// The checks of `f` (the T.check_failure calls under their `if not ok`), in order.
std::vector<Check> Checks(const PrimFunc& f) {
  struct Collector : StmtExprVisitor {
    std::vector<Check> out;
    int ifs = 0;
    void VisitStmt_(const IfThenElseNode* op) override {
      ++ifs;
      StmtExprVisitor::VisitStmt_(op);
      --ifs;
    }
    void VisitExpr_(const CallNode* op) override {
      const auto* o = op->op.as<OpNode>();
      if (o != nullptr && o->name == "tirx.check_failure") {
        std::string m;
        for (const PrimExpr& p : op->args) {
          const auto* s = p.as<StringImmNode>();
          m += s != nullptr ? s->value : "{" + arith::ExprToString(p) + "}";
        }
        out.push_back({m, ifs > 1});
      }
      StmtExprVisitor::VisitExpr_(op);
    }
  } c;
  c.VisitStmt(f->body);
  return c.out;
}

PrimFunc Checked(const PrimFunc& f) {
  absl::StatusOr<PrimFunc> r = InstrumentChecks(f, "f");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : f;
}

// Loops over constant shapes stay check-free: the analyzer proves those accesses in bounds.
TEST(InstrumentChecksTest, ProvableAccessesAreNotChecked) {
  PrimFunc f = Lowered(R"(
@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        B[i, j] = A[i, j] * T.float32(2)
)");
  EXPECT_TRUE(Checks(Checked(f)).empty());
}

TEST(InstrumentChecksTest, OutOfBoundsIsWordedAsTheInterpreter) {
  PrimFunc f = Lowered(R"(
@T.prim_func
def f(A: T.Buffer((4,), "int32"), n: T.int32):
    for i in range(4):
        A[i] = A[i + n]
)");
  PrimFunc g = Checked(f);
  std::vector<Check> a = Checks(g);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].message,
            "f: out-of-bounds access A[{int64(i + n)}]: index {int64(i + n)} of dimension 0 is not in [0, 4) "
            "(at k.py:5:16)");
  // No false alarm: where nothing is out of bounds, the checked function computes the same.
  testing::ExpectSameBehaviour(f, g, {0});
  // Out of bounds, the check reports what the interpreter reports: the index value, the location.
  testing::ExpectSameFailure(f, g, 1);
  testing::ExpectSameFailure(f, g, -7);
}

// Every dimension's index value is shown, as the interpreter shows them.
TEST(InstrumentChecksTest, TwoDimensionalAccessShowsEveryIndex) {
  PrimFunc f = Lowered(R"(
@T.prim_func
def f(A: T.Buffer((3, 4), "int32"), n: T.int32):
    for i, j in T.grid(3, 4):
        A[i, j] = A[i, j * n] + A[i + n, j]
)");
  PrimFunc g = Checked(f);
  EXPECT_EQ(Checks(g).size(), 2u);
  testing::ExpectSameBehaviour(f, g, {0});
  testing::ExpectSameFailure(f, g, 1);   // A[2 + 1, 0]: dimension 0
  testing::ExpectSameFailure(f, g, 2);   // A[0, 2 * 2]: dimension 1
  testing::ExpectSameFailure(f, g, -1);  // A[0, -1]
}

// The arms of if_then_else and the right operand of && are checked only where they run.
TEST(InstrumentChecksTest, LazyOperandsAreCheckedUnderTheirCondition) {
  PrimFunc f = Lowered(R"(
@T.prim_func
def f(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32"), n: T.int32):
    for i in range(4):
        B[i] = T.if_then_else(i + n < 4, A[i + n], 0)
)");
  PrimFunc g = Checked(f);
  std::vector<Check> a = Checks(g);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(a[0].guarded);
  // Padding reads past the end are guarded, so shifted inputs are no alarm.
  testing::ExpectSameBehaviour(f, g, {0, 1, 3, 4});
}

TEST(InstrumentChecksTest, DivisionAndShifts) {
  PrimFunc f = Lowered(R"(
@T.prim_func
def f(A: T.Buffer((4,), "int32"), d: T.int32, s: T.int32):
    for i in range(4):
        A[i] = A[i] // d + A[i] % d + A[i] // 2 + (A[i] << s)
)");
  PrimFunc g = Checked(f);
  std::vector<std::string> messages;
  for (const Check& c : Checks(g)) messages.push_back(c.message);
  EXPECT_EQ(messages, (std::vector<std::string>{
                          "f: int32 division by zero (at k.py:5:16)",
                          "f: undefined behaviour: int32 division overflow (-2147483648 / -1) (at k.py:5:16)",
                          "f: int32 division by zero (at k.py:5:28)",
                          "f: undefined behaviour: T.shift_left of int32 by {s} bits (at k.py:5:52)",
                      }));
  testing::ExpectSameBehaviour(f, g, {1, 3, 7});
  testing::ExpectSameFailure(f, g, 0);   // division by zero
  testing::ExpectSameFailure(f, g, 40);  // shift by 40 bits
  testing::ExpectSameFailure(f, g, -1);  // shift by -1 bits (the divisions by -1 are fine here)
}

TEST(InstrumentChecksTest, HelpersTakeTheCallDepth) {
  absl::StatusOr<ObjectRef> r = script::ParseScript(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(n: T.int32) -> T.int32:
        return Module.f(n + 1)
)", "k.py");
  ASSERT_TRUE(r.ok()) << r.status();
  PrimFunc f = Downcast<PrimFunc>(script::AsModule(*r).Lookup("f"));
  PrimFunc g = Checked(f);
  ASSERT_EQ(g->params.size(), 2u);
  EXPECT_EQ(g->params[1]->name, "checked_call_depth");
  std::vector<Check> a = Checks(g);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].message, "f: calls nest deeper than 64 (at k.py:6:16)");
  // The recursive call passes depth + 1.
  struct Calls : StmtExprVisitor {
    size_t args = 0;
    void VisitExpr_(const CallNode* op) override {
      if (op->op.as<GlobalVarNode>() != nullptr) args = op->args.size();
      StmtExprVisitor::VisitExpr_(op);
    }
  } calls;
  calls.VisitStmt(g->body);
  EXPECT_EQ(calls.args, 2u);
}

}  // namespace
}  // namespace kiln::tir::transform
