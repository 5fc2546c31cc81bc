#include "compiler/relax/transform/passes.h"

#include <string>
#include <vector>

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "compiler/relax/transform/vm_check.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts in these tests are kiln's own printer output for the pass's result, checked
// by reading: a change detector, not an oracle. The oracle is the Relax VM: the pass's output,
// built and run (vm_check.h), must give the values the test computes directly.

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
  // gv = (x + x) * x.
  absl::StatusOr<vm::Value> got = testing::RunOnVM(*out, {testing::F32({4}, {-2, 0.5f, 1, 3})});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), (std::vector<float>{8, 0.5f, 2, 18}));
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
  // f(c, x) = x + x if c else x.
  for (bool c : {true, false}) {
    SCOPED_TRACE(c);
    absl::StatusOr<vm::Value> got = testing::RunOnVM(*out, {testing::Bool(c), testing::F32({2}, {1.5f, -4})}, "f");
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(testing::F32Values(*got), (c ? std::vector<float>{3, -8} : std::vector<float>{1.5f, -4}));
  }
}

}  // namespace
}  // namespace kiln::relax::transform
