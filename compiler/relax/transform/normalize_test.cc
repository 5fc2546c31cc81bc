#include "compiler/relax/transform/passes.h"

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

TEST(Normalize, NestedCallsAreBoundFirstInTheirBlock) {
  ir::IRModule mod = testing::Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        with R.dataflow():
            z = R.nn.relu(R.add(R.multiply(x, b), b))
            gv = R.concat((z, R.abs(x)))
            R.output(gv)
        return gv
)");
  absl::StatusOr<ir::IRModule> out = Normalize(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(CheckWellFormed(*out, nullptr).ok()) << CheckWellFormed(*out, nullptr);
  EXPECT_EQ(testing::PrintBody(*out), R"(    with R.dataflow():
        lv: R.Tensor((4,), dtype="float32") = R.multiply(x, b)
        lv_1: R.Tensor((4,), dtype="float32") = R.add(lv, b)
        z: R.Tensor((4,), dtype="float32") = R.nn.relu(lv_1)
        lv_2: R.Tensor((4,), dtype="float32") = R.abs(x)
        gv: R.Tensor((8,), dtype="float32") = R.concat((z, lv_2), axis=0)
        R.output(gv)
    return gv
)");
}

TEST(Normalize, FlatProgramsAreUnchanged) {
  ir::IRModule mod = testing::Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.add(x, x)
        return y
)");
  absl::StatusOr<ir::IRModule> out = Normalize(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(testing::PrintBody(*out), testing::PrintBody(mod));
}

}  // namespace
}  // namespace kiln::relax::transform
