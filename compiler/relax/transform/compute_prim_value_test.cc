#include "compiler/relax/transform/passes.h"

#include "compiler/relax/analysis/vm_lowered_form.h"
#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts in these tests are kiln's own printer output for the pass's result, checked
// by reading: a change detector, not an oracle. What the lowered code computes is checked end to
// end: tests/corpus (the Relax corpus and models through the whole pipeline, against numpy) and
// compiler/driver/relax_build_e2e_test.

constexpr char kSource[] = R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        if n > 2:
            r = x
        else:
            y = R.call_packed("scale", x, T.Cast("float32", n), n * 2, ty_args=R.Tensor((n,), dtype="float32"))
            r = y
        return r
)";

TEST(ComputePrimValue, NonIntegerExpressionsBecomeKernelCalls) {
  absl::StatusOr<ir::IRModule> out = ComputePrimValue(testing::Parse(kSource));
  ASSERT_TRUE(out.ok()) << out.status();
  absl::Status wf = CheckWellFormed(*out, nullptr);
  EXPECT_TRUE(wf.ok()) << wf;
  // n * 2 is an integer: VMShapeLower computes it on the heap.
  EXPECT_EQ(testing::PrintBody(*out), R"(    cond: T.bool = compute_symbolic_expr1(n)
    if cond:
        r: R.Tensor((n,), dtype="float32") = x
    else:
        prim: T.float32 = compute_symbolic_expr(n)
        y: R.Tensor((n,), dtype="float32") = R.call_packed("scale", x, prim, n * 2, ty_args=R.Tensor((n,), dtype="float32"))
        r: R.Tensor((n,), dtype="float32") = y
    return r
)");
  // The branches are rewritten before the condition.
  EXPECT_EQ(testing::PrintBody(*out, "compute_symbolic_expr"), "    return T.Cast(\"float32\", n)\n");
  EXPECT_EQ(testing::PrintBody(*out, "compute_symbolic_expr1"), "    return n > T.int64(2)\n");
}

TEST(ComputePrimValue, ThenVMShapeLowerReachesTheVMForm) {
  absl::StatusOr<ir::IRModule> out = ComputePrimValue(testing::Parse(kSource));
  ASSERT_TRUE(out.ok()) << out.status();
  out = LowerRuntimeBuiltin(*out);
  ASSERT_TRUE(out.ok()) << out.status();
  out = VMShapeLower(*out);
  ASSERT_TRUE(out.ok()) << out.status();
  absl::Status form = CheckVMLoweredForm(*out);
  EXPECT_TRUE(form.ok()) << form << testing::PrintBody(*out);
}

}  // namespace
}  // namespace kiln::relax::transform
