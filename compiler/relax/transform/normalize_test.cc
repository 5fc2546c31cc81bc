#include "compiler/relax/transform/passes.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "compiler/relax/transform/vm_check.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected text below is kiln's own printer output for the pass's result, checked by reading:
// a change detector, not an oracle. The oracle is the Relax VM: the normalized module, built and
// run (vm_check.h), must give the values computed here (an operand bound out of order or dropped
// changes them).

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
  const std::vector<float> x = {-2, -0.5f, 1, 3}, b = {1, 2, -4, 0.5f};
  std::vector<float> want(8);
  for (int i = 0; i < 4; ++i) {
    want[i] = std::max(x[i] * b[i] + b[i], 0.0f);
    want[4 + i] = std::abs(x[i]);
  }
  absl::StatusOr<vm::Value> got = testing::RunOnVM(*out, {testing::F32({4}, x), testing::F32({4}, b)});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), want);
}

TEST(Normalize, CallsInTupleFieldsAndTupleItemsAreBound) {
  ir::IRModule mod = testing::Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((2,), dtype="float32"))):
        with R.dataflow():
            s = R.split(y, 2)
            a = R.add(x, R.concat((s[1], R.split(x, 2)[0])))
            gv = a, (R.abs(R.subtract(x, y)), s[0])
            R.output(gv)
        return gv
)");
  absl::StatusOr<ir::IRModule> out = Normalize(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(CheckWellFormed(*out, nullptr).ok()) << CheckWellFormed(*out, nullptr);
  EXPECT_EQ(testing::PrintBody(*out), R"(    with R.dataflow():
        s: R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")) = R.split(y, indices_or_sections=2, axis=0)
        lv: R.Tensor((2,), dtype="float32") = s[1]
        lv_1: R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")) = R.split(x, indices_or_sections=2, axis=0)
        lv_2: R.Tensor((2,), dtype="float32") = lv_1[0]
        lv_3: R.Tensor((4,), dtype="float32") = R.concat((lv, lv_2), axis=0)
        a: R.Tensor((4,), dtype="float32") = R.add(x, lv_3)
        lv_4: R.Tensor((4,), dtype="float32") = R.subtract(x, y)
        lv_5: R.Tensor((4,), dtype="float32") = R.abs(lv_4)
        lv_6: R.Tensor((2,), dtype="float32") = s[0]
        gv: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((2,), dtype="float32"))) = (a, (lv_5, lv_6))
        R.output(gv)
    return gv
)");
  const std::vector<float> x = {-2, -0.5f, 1, 3}, y = {1, 2, -4, 0.5f};
  absl::StatusOr<vm::Value> got = testing::RunOnVM(*out, {testing::F32({4}, x), testing::F32({4}, y)});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->is_tuple() && got->as_tuple().size() == 2) << got->DebugString();
  const vm::Value& inner = got->as_tuple()[1];
  ASSERT_TRUE(inner.is_tuple() && inner.as_tuple().size() == 2) << inner.DebugString();
  EXPECT_EQ(testing::F32Values(got->as_tuple()[0]), (std::vector<float>{x[0] + y[2], x[1] + y[3], x[2] + x[0], x[3] + x[1]}));
  std::vector<float> diff(4);
  for (int i = 0; i < 4; ++i) diff[i] = std::abs(x[i] - y[i]);
  EXPECT_EQ(testing::F32Values(inner.as_tuple()[0]), diff);
  EXPECT_EQ(testing::F32Values(inner.as_tuple()[1]), (std::vector<float>{y[0], y[1]}));
}

TEST(Normalize, CallsInAResultTupleAreBoundAtTheEnd) {
  ir::IRModule mod = testing::Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        y = R.multiply(x, x)
        return (R.add(y, x), y)
)");
  absl::StatusOr<ir::IRModule> out = Normalize(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(CheckWellFormed(*out, nullptr).ok()) << CheckWellFormed(*out, nullptr);
  EXPECT_EQ(testing::PrintBody(*out), R"(    y: R.Tensor((4,), dtype="float32") = R.multiply(x, x)
    lv: R.Tensor((4,), dtype="float32") = R.add(y, x)
    return (lv, y)
)");
  const std::vector<float> x = {-2, -0.5f, 1, 3};
  absl::StatusOr<vm::Value> got = testing::RunOnVM(*out, {testing::F32({4}, x)});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->is_tuple() && got->as_tuple().size() == 2) << got->DebugString();
  std::vector<float> sq(4), sum(4);
  for (int i = 0; i < 4; ++i) {
    sq[i] = x[i] * x[i];
    sum[i] = sq[i] + x[i];
  }
  EXPECT_EQ(testing::F32Values(got->as_tuple()[0]), sum);
  EXPECT_EQ(testing::F32Values(got->as_tuple()[1]), sq);
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
  absl::StatusOr<vm::Value> got = testing::RunOnVM(*out, {testing::F32({4}, {1, -2, 0.5f, 0})});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), (std::vector<float>{2, -4, 1, 0}));
}

}  // namespace
}  // namespace kiln::relax::transform
