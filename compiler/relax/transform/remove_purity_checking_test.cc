#include "compiler/relax/transform/passes.h"

#include <vector>

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "compiler/relax/transform/vm_check.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts in these tests are kiln's own printer output for the pass's result, checked
// by reading: a change detector, not an oracle. The oracle is the Relax VM: the pass's output,
// built and run (vm_check.h), must give the values the test states. The fixture taking a closure
// as a parameter is an IR shape only (a caller outside the VM has no closure to pass); invoking
// closures is run by lower_runtime_builtin_test and lambda_lift_test.

TEST(RemovePurityChecking, UnwrapsPurePackedCallsAndForcesPurity) {
  ir::IRModule mod = testing::Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.call_pure_packed("vm.builtin.copy", x, ty_args=R.Tensor((4,), dtype="float32"))
        return y
)");
  absl::StatusOr<ir::IRModule> out = RemovePurityChecking(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(CheckWellFormed(*out, nullptr).ok()) << CheckWellFormed(*out, nullptr);
  std::string text = testing::PrintFunction(*out);
  EXPECT_NE(text.find(R"(R.func_attr({"relax.force_pure": True}))"), std::string::npos) << text;
  EXPECT_EQ(testing::PrintBody(*out),
            R"(    y: R.Tensor((4,), dtype="float32") = R.ExternFunc("vm.builtin.copy")(x)
    return y
)");
  absl::StatusOr<vm::Value> got = testing::RunAfterPass("RemovePurityChecking", *out, {testing::F32({4}, {1, -2, 0.25f, 8})});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), (std::vector<float>{1, -2, 0.25f, 8}));
}

TEST(RemovePurityChecking, ImpureFunctionsKeepTheirFlag) {
  ir::IRModule mod = testing::Parse(R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.call_packed("vm.builtin.copy", x, ty_args=R.Tensor((4,), dtype="float32"))
        return y
)");
  absl::StatusOr<ir::IRModule> out = RemovePurityChecking(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(testing::PrintFunction(*out).find("force_pure"), std::string::npos);
  EXPECT_NE(testing::PrintBody(*out).find("R.call_packed(\"vm.builtin.copy\""), std::string::npos)
      << testing::PrintBody(*out);
  absl::StatusOr<vm::Value> got = testing::RunAfterPass("RemovePurityChecking", *out, {testing::F32({4}, {3, 1, 4, 1})});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), (std::vector<float>{3, 1, 4, 1}));
}

TEST(RemovePurityChecking, InplacePackedCallsBecomeDirectCalls) {
  ir::IRModule mod = testing::Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        t = R.call_inplace_packed("vm.builtin.make_tuple", x, y, inplace_indices=[0, 1], ty_args=[R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")])
        a = t[1]
        return a
)");
  absl::StatusOr<ir::IRModule> out = RemovePurityChecking(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(CheckWellFormed(*out, nullptr).ok()) << CheckWellFormed(*out, nullptr);
  EXPECT_EQ(testing::PrintBody(*out), R"(    t: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = R.ExternFunc("vm.builtin.make_tuple")(x, y)
    a: R.Tensor((4,), dtype="float32") = t[1]
    return a
)");
  // The result aliases the arguments: the builtin hands back y itself as t[1].
  absl::StatusOr<vm::Value> got = testing::RunAfterPass(
      "RemovePurityChecking", *out, {testing::F32({4}, {1, -2, 0.25f, 8}), testing::F32({4}, {3, 1, 4, 1})});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), (std::vector<float>{3, 1, 4, 1}));
}

TEST(RemovePurityChecking, InvokePureClosureBecomesInvokeClosure) {
  ir::IRModule mod = testing::Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(c: R.Callable((R.Tensor((4,), dtype="float32"),), R.Tensor((4,), dtype="float32")), x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.invoke_pure_closure(c, (x,), ty_args=R.Tensor((4,), dtype="float32"))
        return y
)");
  absl::StatusOr<ir::IRModule> out = RemovePurityChecking(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(CheckWellFormed(*out, nullptr).ok()) << CheckWellFormed(*out, nullptr);
  EXPECT_EQ(testing::PrintBody(*out),
            R"(    y: R.Tensor((4,), dtype="float32") = R.invoke_closure(c, (x,), ty_args=R.Tensor((4,), dtype="float32"))
    return y
)");
}

}  // namespace
}  // namespace kiln::relax::transform
