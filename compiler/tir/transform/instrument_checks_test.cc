#include <string>
#include <vector>

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

struct Assert {
  std::string kind, message;
  bool guarded;  // under an IfThenElse the pass added
};

// The asserts of `f`, in order, with "guarded" set for those inside an if.
std::vector<Assert> Asserts(const PrimFunc& f) {
  struct Collector : StmtExprVisitor {
    std::vector<Assert> out;
    int ifs = 0;
    void VisitStmt_(const AssertStmtNode* op) override {
      std::string m;
      for (const String& p : op->message_parts) m += p.str();
      out.push_back({op->error_kind, m, ifs > 0});
      StmtExprVisitor::VisitStmt_(op);
    }
    void VisitStmt_(const IfThenElseNode* op) override {
      ++ifs;
      StmtExprVisitor::VisitStmt_(op);
      --ifs;
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
  EXPECT_TRUE(Asserts(Checked(f)).empty());
}

TEST(InstrumentChecksTest, OutOfBoundsIsWordedAsTheInterpreter) {
  PrimFunc f = Lowered(R"(
@T.prim_func
def f(A: T.Buffer((4,), "int32"), n: T.int32):
    for i in range(4):
        A[i] = A[i + n]
)");
  PrimFunc g = Checked(f);
  std::vector<Assert> a = Asserts(g);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].kind, "IndexError");
  EXPECT_EQ(a[0].message,
            "f: out-of-bounds access A[i + n]: index i + n of dimension 0 is not in [0, 4) (at k.py:5:16)");
  // No false alarm: where nothing is out of bounds, the checked function computes the same.
  testing::ExpectSameBehaviour(f, g, {0});
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
  std::vector<Assert> a = Asserts(g);
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
  for (const Assert& a : Asserts(g)) messages.push_back(a.kind + ": " + a.message);
  EXPECT_EQ(messages, (std::vector<std::string>{
                          "ZeroDivisionError: f: int32 division by zero (at k.py:5:16)",
                          "ArithmeticError: f: undefined behaviour: int32 division overflow (-2147483648 / -1) "
                          "(at k.py:5:16)",
                          "ZeroDivisionError: f: int32 division by zero (at k.py:5:28)",
                          "ArithmeticError: f: undefined behaviour: T.shift_left of int32 by s bits, not in "
                          "[0, 32) (at k.py:5:52)",
                      }));
  testing::ExpectSameBehaviour(f, g, {1, 3, 7});
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
  std::vector<Assert> a = Asserts(g);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].kind + ": " + a[0].message, "RecursionError: f: calls nest deeper than 64 (at k.py:6:9)");
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
