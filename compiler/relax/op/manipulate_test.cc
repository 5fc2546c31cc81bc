#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"

namespace kiln::relax::testing {
namespace {

TEST(Reshape, StaticSymbolicAndMinusOne) {
  EXPECT_EQ(Str(Infer("reshape", {V("x", Tensor({2, 12})), Shape({2, 3, 4})})), "R.Tensor((2, 3, 4), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("reshape", {V("x", Tensor({2, 12})), Shape({-1, 6})})), "R.Tensor((4, 6), dtype=\"float32\")");
  ir::Var n = SymVar("n"), m = SymVar("m"), k = SymVar("k");
  EXPECT_EQ(Str(Infer("reshape", {V("x", Tensor({n, 4})), Shape({-1})})), "R.Tensor((n * 4,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("reshape", {V("x", Tensor({n, 4})), Shape({-1, 2})})), "R.Tensor((n * 2, 2), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("reshape", {V("y", Tensor({m, k})), Shape({ir::Mul(m, k)})})),
            "R.Tensor((m * k,), dtype=\"float32\")");
}

TEST(Reshape, Errors) {
  absl::StatusOr<ir::Type> t = Infer("reshape", {V("x", Tensor({2, 12})), Shape({5, 5})});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("cannot reshape"), std::string::npos);
  EXPECT_FALSE(Infer("reshape", {V("x", Tensor({2, 12})), Shape({-1, -1})}).ok());
  EXPECT_FALSE(Infer("reshape", {V("x", Tensor({2, 12})), Shape({-1, 5})}).ok());
}

TEST(Reshape, ShapeVariable) {
  ir::Var s = V("s", ir::ShapeType(3));
  EXPECT_EQ(Str(Infer("reshape", {V("x", Tensor({24})), s})), "R.Tensor(ndim=3, dtype=\"float32\")");
}

TEST(Manipulate, PermuteExpandSqueezeFlatten) {
  ir::Var x = V("x", Tensor({2, 3, 4}));
  EXPECT_EQ(Str(Infer("permute_dims", {x}, {{"axes", Ints({2, 0, 1})}})), "R.Tensor((4, 2, 3), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("permute_dims", {x})), "R.Tensor((4, 3, 2), dtype=\"float32\")");
  EXPECT_FALSE(Infer("permute_dims", {x}, {{"axes", Ints({0, 0, 1})}}).ok());
  EXPECT_EQ(Str(Infer("expand_dims", {x}, {{"axis", Ints({0, -1})}})), "R.Tensor((1, 2, 3, 4, 1), dtype=\"float32\")");
  ir::Var y = V("y", Tensor({1, 3, 1}));
  EXPECT_EQ(Str(Infer("squeeze", {y})), "R.Tensor((3,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("squeeze", {y}, {{"axis", Ints({2})}})), "R.Tensor((1, 3), dtype=\"float32\")");
  EXPECT_FALSE(Infer("squeeze", {y}, {{"axis", Ints({1})}}).ok());
  EXPECT_EQ(Str(Infer("flatten", {x})), "R.Tensor((24,), dtype=\"float32\")");
}

TEST(Concat, AlongAxis) {
  ir::Expr t = ir::relax::Tuple({V("a", Tensor({2, 3}, "int32")), V("b", Tensor({4, 3}, "int32"))});
  EXPECT_EQ(Str(Infer("concat", {t}, {{"axis", I(0)}})), "R.Tensor((6, 3), dtype=\"int32\")");
  ir::Var n = SymVar("n");
  ir::Expr s = ir::relax::Tuple({V("a", Tensor({n, 3})), V("b", Tensor({2, 3}))});
  EXPECT_EQ(Str(Infer("concat", {s})), "R.Tensor((n + 2, 3), dtype=\"float32\")");
  ir::Expr bad = ir::relax::Tuple({V("a", Tensor({2, 3})), V("b", Tensor({2, 4}))});
  EXPECT_FALSE(Infer("concat", {bad}, {{"axis", I(0)}}).ok());
  ir::Expr mixed = ir::relax::Tuple({V("a", Tensor({2, 3})), V("b", Tensor({2, 3}, "int32"))});
  EXPECT_FALSE(Infer("concat", {mixed}).ok());
}

TEST(Split, SectionsAndIndices) {
  ir::Var x = V("x", Tensor({6, 2, 2}));
  EXPECT_EQ(Str(Infer("split", {x}, {{"indices_or_sections", Ints({2})}, {"axis", I(0)}})),
            "R.Tuple(R.Tensor((2, 2, 2), dtype=\"float32\"), R.Tensor((4, 2, 2), dtype=\"float32\"))");
  EXPECT_EQ(Str(Infer("split", {x}, {{"indices_or_sections", I(3)}})),
            "R.Tuple(R.Tensor((2, 2, 2), dtype=\"float32\"), R.Tensor((2, 2, 2), dtype=\"float32\"), "
            "R.Tensor((2, 2, 2), dtype=\"float32\"))");
  EXPECT_FALSE(Infer("split", {x}, {{"indices_or_sections", I(4)}}).ok());
  EXPECT_FALSE(Infer("split", {x}).ok());  // indices_or_sections is required
}

TEST(BroadcastTo, Checks) {
  EXPECT_EQ(Str(Infer("broadcast_to", {V("x", Tensor({1, 3})), Shape({4, 3})})), "R.Tensor((4, 3), dtype=\"float32\")");
  EXPECT_FALSE(Infer("broadcast_to", {V("x", Tensor({2, 3})), Shape({4, 3})}).ok());
  EXPECT_EQ(Str(Infer("collapse_sum_to", {V("x", Tensor({4, 3})), Shape({1, 3})})), "R.Tensor((1, 3), dtype=\"float32\")");
}

}  // namespace
}  // namespace kiln::relax::testing
