#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"

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
  EXPECT_NE(t.status().message().find("reduction"), std::string::npos);
  EXPECT_FALSE(Infer("matmul", {V("a", Tensor({2, 3, 4})), V("b", Tensor({5, 4, 6}))}).ok());  // batch 2 vs 5
  EXPECT_FALSE(Infer("matmul", {V("a", Tensor({2, 2}, "float16")), V("b", Tensor({2, 2}))}).ok());
  EXPECT_EQ(Str(Infer("matmul", {V("a", Tensor({2, 2}, "int8")), V("b", Tensor({2, 2}, "int8"))},
                      {{"out_dtype", ir::String("int32")}})),
            "R.Tensor((2, 2), dtype=\"int32\")");
  EXPECT_EQ(Str(Infer("matmul", {V("a", TensorNdim(3)), V("b", TensorNdim(2))})), "R.Tensor(ndim=3, dtype=\"float32\")");
}

TEST(Outer, Shape) {
  EXPECT_EQ(Str(Infer("outer", {V("a", Tensor({3})), V("b", Tensor({5}))})), "R.Tensor((3, 5), dtype=\"float32\")");
}

}  // namespace
}  // namespace kiln::relax::testing
