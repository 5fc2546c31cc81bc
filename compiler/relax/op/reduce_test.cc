#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"

namespace kiln::relax::testing {
namespace {

TEST(Reduce, AxesAndKeepdims) {
  ir::Var x = V("x", Tensor({3, 4, 5}));
  EXPECT_EQ(Str(Infer("sum", {x}, {{"axis", Ints({1})}})), "R.Tensor((3, 5), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("mean", {x}, {{"axis", Ints({0, 2})}})), "R.Tensor((4,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("max", {x}, {{"axis", Ints({-1})}, {"keepdims", ir::IntImm(ir::DataType::Bool(), 1)}})),
            "R.Tensor((3, 4, 1), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("prod", {x})), "R.Tensor((), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("variance", {x}, {{"keepdims", ir::IntImm(ir::DataType::Bool(), 1)}})),
            "R.Tensor((1, 1, 1), dtype=\"float32\")");
  // An int for a list attribute is accepted as [int] (as TVM's Python wrapper does).
  EXPECT_EQ(Str(Infer("sum", {x}, {{"axis", ir::IntImm(ir::DataType::Int(32), 2)}})),
            "R.Tensor((3, 4), dtype=\"float32\")");
}

TEST(Reduce, Errors) {
  ir::Var x = V("x", Tensor({3, 4}));
  EXPECT_FALSE(Infer("sum", {x}, {{"axis", Ints({2})}}).ok());
  EXPECT_FALSE(Infer("sum", {x}, {{"axis", Ints({1, -1})}}).ok());
}

TEST(Reduce, UnknownShape) {
  EXPECT_EQ(Str(Infer("sum", {V("x", TensorNdim(3))}, {{"axis", Ints({1})}})), "R.Tensor(ndim=2, dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("sum", {V("x", TensorNdim(-1))})), "R.Tensor((), dtype=\"float32\")");
}

TEST(Reduce, ArgmaxAndScan) {
  ir::Var x = V("x", Tensor({3, 4}));
  EXPECT_EQ(Str(Infer("argmax", {x}, {{"axis", I(1)}})), "R.Tensor((3,), dtype=\"int64\")");
  EXPECT_EQ(Str(Infer("argmin", {x})), "R.Tensor((), dtype=\"int64\")");
  EXPECT_EQ(Str(Infer("cumsum", {V("c", Tensor({10}, "int32"))}, {{"axis", I(0)}, {"dtype", ir::String("int64")}})),
            "R.Tensor((10,), dtype=\"int64\")");
  EXPECT_EQ(Str(Infer("cumprod", {x})), "R.Tensor((12,), dtype=\"float32\")");
}

}  // namespace
}  // namespace kiln::relax::testing
