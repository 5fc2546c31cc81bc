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

TEST(RemovePurityChecking, UnwrapsPurePackedCallsAndForcesPurity) {
  ir::IRModule mod = testing::Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.call_pure_packed("my_identity", x, ty_args=R.Tensor((4,), dtype="float32"))
        return y
)");
  absl::StatusOr<ir::IRModule> out = RemovePurityChecking(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(CheckWellFormed(*out, nullptr).ok()) << CheckWellFormed(*out, nullptr);
  std::string text = testing::PrintFunction(*out);
  EXPECT_NE(text.find(R"(R.func_attr({"relax.force_pure": True}))"), std::string::npos) << text;
  EXPECT_EQ(testing::PrintBody(*out),
            R"(    y: R.Tensor((4,), dtype="float32") = R.ExternFunc("my_identity")(x)
    return y
)");
}

TEST(RemovePurityChecking, ImpureFunctionsKeepTheirFlag) {
  ir::IRModule mod = testing::Parse(R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.call_packed("my_print", x, ty_args=R.Tensor((4,), dtype="float32"))
        return y
)");
  absl::StatusOr<ir::IRModule> out = RemovePurityChecking(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(testing::PrintFunction(*out).find("force_pure"), std::string::npos);
  EXPECT_NE(testing::PrintBody(*out).find("R.call_packed(\"my_print\""), std::string::npos) << testing::PrintBody(*out);
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
