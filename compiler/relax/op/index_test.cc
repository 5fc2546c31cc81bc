#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

ir::Expr PrimTuple(std::vector<int64_t> v) {
  ir::Array<ir::Expr> f;
  for (int64_t x : v) f.push_back(ir::relax::PrimValue(I(x)));
  return ir::relax::Tuple(f);
}

TEST(Take, Axis) {
  ir::Var x = V("x", Tensor({10, 3}, "int32"));
  ir::Var idx = V("i", Tensor({4, 2}, "int64"));
  EXPECT_EQ(Str(Infer("take", {x, idx}, {{"axis", I(0)}})), "R.Tensor((4, 2, 3), dtype=\"int32\")");
  EXPECT_EQ(Str(Infer("take", {x, idx}, {{"axis", I(1)}})), "R.Tensor((10, 4, 2), dtype=\"int32\")");
  EXPECT_EQ(Str(Infer("take", {x, idx})), "R.Tensor((4, 2), dtype=\"int32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("take", {x, V("f", Tensor({2}))}, {{"axis", I(0)}}),
                                "R.take: indices must have an integer dtype, got float32"));
  EXPECT_TRUE(IsInvalidArgument(Infer("take", {x, idx}, {{"axis", I(2)}}),
                                "R.take: axis 2 is out of range for a tensor of rank 2"));
}

TEST(StridedSlice, Lengths) {
  ir::Var x = V("x", Tensor({10, 8}));
  EXPECT_EQ(Str(Infer("strided_slice", {x, PrimTuple({0}), PrimTuple({1}), PrimTuple({7}), PrimTuple({2})})),
            "R.Tensor((3, 8), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("strided_slice", {x, PrimTuple({1, 0}), PrimTuple({-3, 0}), PrimTuple({100, 5})})),
            "R.Tensor((5, 3), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("strided_slice", {x, PrimTuple({0}), PrimTuple({9}), PrimTuple({-100}), PrimTuple({-3})})),
            "R.Tensor((4, 8), dtype=\"float32\")");
  ir::Var n = SymVar("n");
  EXPECT_EQ(Str(Infer("strided_slice", {V("y", Tensor({n})), PrimTuple({0}), PrimTuple({2}), PrimTuple({5})})),
            "R.Tensor((3,), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("strided_slice", {x, PrimTuple({0}), PrimTuple({0, 1}), PrimTuple({1})}),
                                "R.strided_slice: axes, begin, end and strides must have the same length"));
  EXPECT_TRUE(IsInvalidArgument(Infer("strided_slice", {x, PrimTuple({0}), PrimTuple({0})}),  // too few args
                                "R.strided_slice: expects 4 to 5 positional argument(s), got 3"));
}

TEST(Where, ThreeWayBroadcast) {
  EXPECT_EQ(Str(Infer("where", {V("c", Tensor({10}, "bool")), V("x", Tensor({10})), V("y", Tensor({10}))})),
            "R.Tensor((10,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("where", {V("c", Tensor({4, 1}, "bool")), V("x", Tensor({1, 5})), V("y", Tensor({}))})),
            "R.Tensor((4, 5), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("where", {V("c", Tensor({3}, "bool")), V("x", Tensor({4})), V("y", Tensor({4}))}),
                                "R.where: cannot broadcast shapes (3,) and (4,): dimension 3 vs 4"));
  EXPECT_TRUE(IsInvalidArgument(Infer("where", {V("c", Tensor({4}, "bool")), V("x", Tensor({4})), V("y", Tensor({4}, "int32"))}),
                                "R.where: dtype mismatch: float32 vs int32"));
}

TEST(DynamicStridedSlice, RankOnly) {
  ir::Var x = V("x", Tensor({8, 9}));
  ir::Var b = V("b", Tensor({2}, "int64"));
  EXPECT_EQ(Str(Infer("dynamic_strided_slice", {x, b, b, b})), "R.Tensor(ndim=2, dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("dynamic_strided_slice", {x, V("c", Tensor({3}, "int64")), b, b}),
                                "R.dynamic_strided_slice: begin has 3 entries for a tensor of rank 2"));
  EXPECT_TRUE(IsInvalidArgument(Infer("dynamic_strided_slice", {x, V("c", Tensor({2}, "int32")), b, b}),
                                "R.dynamic_strided_slice: begin must be int64, got int32"));
}

}  // namespace
}  // namespace kiln::relax::testing
