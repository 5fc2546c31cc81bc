#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

TEST(Create, FullZerosOnes) {
  ir::Var k = V("k", ir::PrimType(ir::DataType::Float(32)));
  EXPECT_EQ(Str(Infer("full", {Shape({}), k}, {{"dtype", ir::String("float32")}})), "R.Tensor((), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("full", {Shape({2, 3}), k})), "R.Tensor((2, 3), dtype=\"float32\")");  // dtype from fill
  EXPECT_EQ(Str(Infer("zeros", {Shape({4})}, {{"dtype", ir::String("int8")}})), "R.Tensor((4,), dtype=\"int8\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("ones", {Shape({4})}),  // dtype required
                                "R.ones: missing required argument 'dtype'"));
  EXPECT_TRUE(IsInvalidArgument(Infer("zeros", {V("x", Tensor({4}))}, {{"dtype", ir::String("int8")}}),
                                "R.zeros: expects a shape for argument 'shape'"));
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
  EXPECT_TRUE(IsInvalidArgument(Infer("arange", {pv(0), pv(4), pv(0)}), "R.arange: step must be non-zero"));
}

TEST(Create, TrilFillsDefaultK) {
  absl::StatusOr<ir::relax::Call> c = MakeOpCall("tril", {V("x", Tensor({3, 3}))}, {}, {}, ir::IRModule());
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ((*c)->args.size(), 2u);
  EXPECT_EQ(Str((*c)->ty), "R.Tensor((3, 3), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("triu", {V("x", Tensor({3}))}), "R.triu: expects a tensor of rank >= 2, got 1"));
}

TEST(Create, EyeAndEyeLike) {
  ir::Expr three = ir::relax::PrimValue(I(3)), four = ir::relax::PrimValue(I(4));
  // m defaults to n and k to 0; dtype defaults to float32.
  absl::StatusOr<ir::relax::Call> c = MakeOpCall("eye", {three}, {}, {}, ir::IRModule());
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ((*c)->args.size(), 3u);
  EXPECT_EQ(Str((*c)->ty), "R.Tensor((3, 3), dtype=\"float32\")");
  EXPECT_EQ(AsConst((*c)->args[2].as<ir::relax::PrimValueNode>()->value), std::optional<int64_t>(0));
  EXPECT_EQ(Str(Infer("eye", {three, four, ir::relax::PrimValue(I(1))}, {{"dtype", ir::String("int32")}})),
            "R.Tensor((3, 4), dtype=\"int32\")");
  ir::Var n = SymVar("n");
  EXPECT_EQ(Str(Infer("eye", {ir::relax::PrimValue(n)})), "R.Tensor((n, n), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("eye", {V("x", Tensor({3}))}), "R.eye: expects a prim value for argument 'n'"));
  ir::Var x = V("x", Tensor({2, 5}, "float16"));
  EXPECT_EQ(Str(Infer("eye_like", {x})), "R.Tensor((2, 5), dtype=\"float16\")");
  EXPECT_EQ(Str(Infer("eye_like", {x, ir::relax::PrimValue(I(1))}, {{"dtype", ir::String("int8")}})),
            "R.Tensor((2, 5), dtype=\"int8\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("eye_like", {V("y", Tensor({2, 5, 1}))}),  // must be 2-D
                                "R.eye_like: expects a 2-D tensor, got rank 3"));
}

TEST(Create, HammingWindow) {
  ir::Expr t = ir::relax::PrimValue(ir::IntImm(ir::DataType::Bool(), 1));
  ir::Expr a = ir::relax::PrimValue(ir::FloatImm(ir::DataType::Float(64), 0.54));
  ir::Expr b = ir::relax::PrimValue(ir::FloatImm(ir::DataType::Float(64), 0.46));
  EXPECT_EQ(Str(Infer("hamming_window", {ir::relax::PrimValue(I(10)), t, a, b}, {{"dtype", ir::String("float32")}})),
            "R.Tensor((10,), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("hamming_window", {ir::relax::PrimValue(I(10)), t, a, b}, {{"dtype", ir::String("int32")}}),
                                "R.hamming_window: expects a floating-point dtype, got int32"));
  EXPECT_TRUE(IsInvalidArgument(Infer("hamming_window", {ir::relax::PrimValue(I(0)), t, a, b}, {{"dtype", ir::String("float32")}}),
                                "R.hamming_window: window_size must be positive, got 0"));
  EXPECT_TRUE(IsInvalidArgument(Infer("hamming_window", {ir::relax::PrimValue(I(10)), t, a, b}),  // dtype is required
                                "R.hamming_window: missing required argument 'dtype'"));
}

}  // namespace
}  // namespace kiln::relax::testing
