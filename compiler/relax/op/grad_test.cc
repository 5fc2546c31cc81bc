#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

TEST(Grad, BackwardOpsTakeTheForwardInputType) {
  ir::Var g = V("g", Tensor({}));
  ir::Var pred = V("pred", Tensor({3, 5}));
  ir::Var tgt = V("tgt", Tensor({3}, "int64"));
  EXPECT_EQ(Str(Infer("grad.nll_loss_backward", {g, pred, tgt})), "R.Tensor((3, 5), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("grad.nll_loss_backward", {g, pred, tgt, V("w", Tensor({5}))},
                      {{"reduction", ir::String("sum")}})),
            "R.Tensor((3, 5), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("grad.nll_loss_backward", {g, pred}),  // targets is required
                                "R.grad.nll_loss_backward: expects 3 to 4 positional argument(s)"));
  ir::Var x = V("x", Tensor({1, 3, 8, 8}));
  EXPECT_EQ(Str(Infer("grad.max_pool2d_backward", {V("dy", Tensor({1, 3, 4, 4})), x},
                      {{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}})),
            "R.Tensor((1, 3, 8, 8), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("grad.take_backward", {V("dy", Tensor({2, 4})), V("t", Tensor({6, 4})), V("i", Tensor({2}, "int32"))},
                      {{"axis", I(0)}})),
            "R.Tensor((6, 4), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("grad.no_grad", {x})), "R.Tensor((1, 3, 8, 8), dtype=\"float32\")");
}

TEST(Grad, PoolBackwardOutLayoutDefaultsToLayout) {
  const OpSchema& s = *OpRegistry::Global().FindByScriptName("grad.avg_pool2d_backward");
  absl::StatusOr<ir::Map<ir::String, ir::ObjectRef>> a = NormalizeAttrs(s, {{"layout", ir::String("NHWC")}});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->Get("out_layout").as<ir::StringNode>()->value, "NHWC");
}

}  // namespace
}  // namespace kiln::relax::testing
