#include "compiler/relax/transform/passes.h"

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts in these tests are kiln's own printer output for the pass's result, checked
// by reading: a change detector, not an oracle. What the lowered code computes is checked end to
// end: tests/corpus (the Relax corpus and models through the whole pipeline, against numpy) and
// compiler/driver/relax_build_e2e_test.

TEST(ToNonDataflow, DataflowBlocksAndVarsBecomePlain) {
  ir::IRModule mod = testing::Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4,), dtype="float32") = R.add(x, x)
            gv: R.Tensor((4,), dtype="float32") = R.multiply(lv, x)
            R.output(gv)
        return gv
)");
  absl::StatusOr<ir::IRModule> out = ToNonDataflow(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(CheckWellFormed(*out, nullptr).ok()) << CheckWellFormed(*out, nullptr);
  EXPECT_EQ(testing::PrintBody(*out), R"(    lv: R.Tensor((4,), dtype="float32") = R.add(x, x)
    gv: R.Tensor((4,), dtype="float32") = R.multiply(lv, x)
    return gv
)");
  // The input module is unchanged.
  EXPECT_NE(testing::PrintBody(mod).find("R.dataflow()"), std::string::npos);
}

TEST(ToNonDataflow, IfBranchesAndOtherFunctions) {
  ir::IRModule mod = testing::Parse(R"(
@I.ir_module
class Module:
    @R.function
    def f(c: R.Tensor((), dtype="bool"), x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        if c:
            with R.dataflow():
                a: R.Tensor((2,), dtype="float32") = R.add(x, x)
                R.output(a)
            r = a
        else:
            r = x
        return r
)");
  absl::StatusOr<ir::IRModule> out = ToNonDataflow(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(CheckWellFormed(*out, nullptr).ok()) << CheckWellFormed(*out, nullptr);
  EXPECT_EQ(testing::PrintBody(*out, "f").find("dataflow"), std::string::npos) << testing::PrintBody(*out, "f");
}

}  // namespace
}  // namespace kiln::relax::transform
