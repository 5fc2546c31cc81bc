#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

TEST(Matmul, Shapes) {
  EXPECT_EQ(Str(Infer("matmul", {V("a", Tensor({8, 16})), V("b", Tensor({16, 32}))})),
            "R.Tensor((8, 32), dtype=\"float32\")");
  ir::Var b = SymVar("b");
  EXPECT_EQ(Str(Infer("matmul", {V("x", Tensor({b, 3, 4})), V("w", Tensor({4, 2}))})),
            "R.Tensor((b, 3, 2), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("matmul", {V("x", Tensor({2, 1, 3, 4})), V("w", Tensor({5, 4, 6}))})),
            "R.Tensor((2, 5, 3, 6), dtype=\"float32\")");
}

TEST(Matmul, VectorCases) {
  EXPECT_EQ(Str(Infer("matmul", {V("v", Tensor({4})), V("w", Tensor({4, 2}))})), "R.Tensor((2,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("matmul", {V("w", Tensor({3, 4})), V("v", Tensor({4}))})), "R.Tensor((3,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("matmul", {V("u", Tensor({4})), V("v", Tensor({4}))})), "R.Tensor((), dtype=\"float32\")");
}

TEST(Matmul, ErrorsAndDtypes) {
  absl::StatusOr<ir::Type> t = Infer("matmul", {V("a", Tensor({8, 16})), V("b", Tensor({15, 32}))});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
  EXPECT_NE(t.status().message().find("reduction"), std::string::npos);
  EXPECT_TRUE(IsInvalidArgument(Infer("matmul", {V("a", Tensor({2, 3, 4})), V("b", Tensor({5, 4, 6}))}),  // batch 2 vs 5
                                "R.matmul: cannot broadcast shapes (2,) and (5,)"));
  EXPECT_TRUE(IsInvalidArgument(Infer("matmul", {V("a", Tensor({2, 2}, "float16")), V("b", Tensor({2, 2}))}),
                                "R.matmul: dtype mismatch: float16 vs float32"));
  EXPECT_EQ(Str(Infer("matmul", {V("a", Tensor({2, 2}, "int8")), V("b", Tensor({2, 2}, "int8"))},
                      {{"out_dtype", ir::String("int32")}})),
            "R.Tensor((2, 2), dtype=\"int32\")");
  EXPECT_EQ(Str(Infer("matmul", {V("a", TensorNdim(3)), V("b", TensorNdim(2))})), "R.Tensor(ndim=3, dtype=\"float32\")");
}

TEST(Outer, Shape) {
  EXPECT_EQ(Str(Infer("outer", {V("a", Tensor({3})), V("b", Tensor({5}))})), "R.Tensor((3, 5), dtype=\"float32\")");
}

TEST(Einsum, ExplicitImplicitEllipsis) {
  ir::Var a = V("a", Tensor({2, 3})), b = V("b", Tensor({3, 4}));
  ir::Expr ab = ir::relax::Tuple({a, b});
  EXPECT_EQ(Str(Infer("einsum", {ab}, {{"subscripts", ir::String("ij,jk->ik")}})), "R.Tensor((2, 4), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("einsum", {ab}, {{"subscripts", ir::String("ij,jk")}})), "R.Tensor((2, 4), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("einsum", {ir::relax::Tuple({a, a})}, {{"subscripts", ir::String("ij,ij->")}})),
            "R.Tensor((), dtype=\"float32\")");
  ir::Expr batched = ir::relax::Tuple({V("x", Tensor({5, 1, 2, 3})), V("y", Tensor({7, 3, 4}))});
  EXPECT_EQ(Str(Infer("einsum", {batched}, {{"subscripts", ir::String("...ij,...jk->...ik")}})),
            "R.Tensor((5, 7, 2, 4), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("einsum", {ab}, {{"subscripts", ir::String("ij,kj->ik")}}),  // j: 3 vs 4
                                "R.einsum: label 'j' has sizes 3 and 4"));
  // A label of size 1 broadcasts against the other operand's size, as in TVM's einsum.
  ir::Expr bc = ir::relax::Tuple({V("p", Tensor({1, 4})), V("q", Tensor({2, 4}))});
  EXPECT_EQ(Str(Infer("einsum", {bc}, {{"subscripts", ir::String("ij, ij -> i")}})), "R.Tensor((2,), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("einsum", {ab}, {{"subscripts", ir::String("ij->ij")}}),     // two operands
                                "R.einsum: subscripts name 1 operand(s) but 2 were given"));
  EXPECT_TRUE(IsInvalidArgument(Infer("einsum", {ab}, {{"subscripts", ir::String("ij,jk->iz")}}),
                                "R.einsum: output label 'z' does not appear in the inputs"));
  EXPECT_TRUE(IsInvalidArgument(Infer("einsum", {ab}),  // subscripts is required
                                "R.einsum: missing required argument 'subscripts'"));
}

TEST(Linear, ExpandsToMatmulOfTransposedWeight) {
  ir::Var x = V("x", Tensor({4, 16})), w = V("w", Tensor({8, 16})), b = V("b", Tensor({8}));
  absl::StatusOr<ir::relax::Call> c = MakeOpCall("linear", {x, w, b}, {}, {}, ir::IRModule());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Str((*c)->ty), "R.Tensor((4, 8), dtype=\"float32\")");
  EXPECT_EQ((*c)->op.as<ir::OpNode>()->name, "relax.add");
  const auto* mm = (*c)->args[0].as<ir::relax::CallNode>();
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->op.as<ir::OpNode>()->name, "relax.matmul");
  EXPECT_EQ(mm->args[1].as<ir::relax::CallNode>()->op.as<ir::OpNode>()->name, "relax.permute_dims");
  absl::StatusOr<ir::relax::Call> nb = MakeOpCall("linear", {x, w}, {}, {}, ir::IRModule());
  ASSERT_TRUE(nb.ok());
  EXPECT_EQ((*nb)->op.as<ir::OpNode>()->name, "relax.matmul");
  EXPECT_TRUE(IsInvalidArgument(Infer("linear", {x, V("w2", Tensor({8, 15}))}),
                                "R.matmul: reduction dimensions differ: (4, 16) @ (15, 8)"));
  EXPECT_EQ(OpRegistry::Global().FindByName("relax.linear"), nullptr);  // not an operator of its own
}

}  // namespace
}  // namespace kiln::relax::testing
