#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"

namespace kiln::relax::testing {
namespace {

TEST(Create, FullZerosOnes) {
  ir::Var k = V("k", ir::PrimType(ir::DataType::Float(32)));
  EXPECT_EQ(Str(Infer("full", {Shape({}), k}, {{"dtype", ir::String("float32")}})), "R.Tensor((), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("full", {Shape({2, 3}), k})), "R.Tensor((2, 3), dtype=\"float32\")");  // dtype from fill
  EXPECT_EQ(Str(Infer("zeros", {Shape({4})}, {{"dtype", ir::String("int8")}})), "R.Tensor((4,), dtype=\"int8\")");
  EXPECT_FALSE(Infer("ones", {Shape({4})}).ok());  // dtype required
  EXPECT_FALSE(Infer("zeros", {V("x", Tensor({4}))}, {{"dtype", ir::String("int8")}}).ok());
}

TEST(Create, Like) {
  ir::Var x = V("x", Tensor({2, 5}));
  EXPECT_EQ(Str(Infer("zeros_like", {x})), "R.Tensor((2, 5), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("ones_like", {x}, {{"dtype", ir::String("int32")}})), "R.Tensor((2, 5), dtype=\"int32\")");
}

TEST(Create, Arange) {
  auto pv = [](int64_t v) { return ir::relax::PrimValue(I(v)); };
  EXPECT_EQ(Str(Infer("arange", {pv(0), pv(10), pv(3)}, {{"dtype", ir::String("int64")}})),
            "R.Tensor((4,), dtype=\"int64\")");
  EXPECT_EQ(Str(Infer("arange", {pv(10), pv(0), pv(-2)})), "R.Tensor((5,), dtype=\"int64\")");
  ir::Var n = SymVar("n");
  EXPECT_EQ(Str(Infer("arange", {pv(0), ir::relax::PrimValue(n), pv(1)})), "R.Tensor((n,), dtype=\"int64\")");
  EXPECT_FALSE(Infer("arange", {pv(0), pv(4), pv(0)}).ok());
}

TEST(Create, TrilFillsDefaultK) {
  absl::StatusOr<ir::relax::Call> c = MakeOpCall("tril", {V("x", Tensor({3, 3}))}, {}, {}, ir::IRModule());
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ((*c)->args.size(), 2u);
  EXPECT_EQ(Str((*c)->ty), "R.Tensor((3, 3), dtype=\"float32\")");
  EXPECT_FALSE(Infer("triu", {V("x", Tensor({3}))}).ok());
}

}  // namespace
}  // namespace kiln::relax::testing
