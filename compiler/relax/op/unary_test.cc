#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

TEST(Unary, KeepsShapeAndDtype) {
  ir::Var n = SymVar("n");
  EXPECT_EQ(Str(Infer("exp", {V("x", Tensor({n, 3}))})), "R.Tensor((n, 3), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("abs", {V("x", Tensor({4}, "int32"))})), "R.Tensor((4,), dtype=\"int32\")");
  EXPECT_EQ(Str(Infer("sigmoid", {V("x", TensorNdim(3))})), "R.Tensor(ndim=3, dtype=\"float32\")");
}

TEST(Unary, FloatOnlyAndPredicates) {
  absl::StatusOr<ir::Type> t = Infer("sqrt", {V("x", Tensor({4}, "int32"))});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
  EXPECT_NE(t.status().message().find("floating"), std::string::npos);
  EXPECT_EQ(Str(Infer("isnan", {V("x", Tensor({4}))})), "R.Tensor((4,), dtype=\"bool\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("bitwise_not", {V("x", Tensor({4}))}),
                                "R.bitwise_not: expects an integer input, got float32"));
}

TEST(Unary, ClipAndAstype) {
  ir::Expr lo = ir::relax::PrimValue(ir::FloatImm(ir::DataType::Float(32), 0.0));
  ir::Expr hi = ir::relax::PrimValue(ir::FloatImm(ir::DataType::Float(32), 6.0));
  EXPECT_EQ(Str(Infer("clip", {V("x", Tensor({2, 2})), lo, hi})), "R.Tensor((2, 2), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("astype", {V("x", Tensor({6, 3}, "int32"))}, {{"dtype", ir::String("float16")}})),
            "R.Tensor((6, 3), dtype=\"float16\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("astype", {V("x", Tensor({6}))}),  // dtype is required
                                "R.astype: missing required argument 'dtype'"));
}

TEST(Unary, WrapParamQuantizeDequantize) {
  ir::Var w = V("w", Tensor({4, 8}, "float16"));
  EXPECT_EQ(Str(Infer("wrap_param", {w})), "R.Tensor((4, 8), dtype=\"float32\")");
  ir::Var x = V("x", Tensor({4, 8}));
  ir::Var s = V("s", Tensor({8}));
  ir::Var z = V("z", Tensor({8}, "int8"));
  EXPECT_EQ(Str(Infer("quantize", {x, s, z})), "R.Tensor((4, 8), dtype=\"int8\")");
  EXPECT_EQ(Str(Infer("quantize", {x, V("s1", Tensor({})), V("z1", Tensor({}, "int8"))}, {{"axis", I(0)}})),
            "R.Tensor((4, 8), dtype=\"int8\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("quantize", {x, s, z}, {{"axis", I(0)}}),  // 8 params for 4 rows
                                "R.quantize: scale has shape (8,) but dimension 0 of data is 4"));
  EXPECT_TRUE(IsInvalidArgument(Infer("quantize", {x, s, z}, {{"out_dtype", ir::String("int32")}}),
                                "R.quantize: unsupported out_dtype int32"));
  ir::Var q = V("q", Tensor({4, 8}, "int8"));
  EXPECT_EQ(Str(Infer("dequantize", {q, s, z})), "R.Tensor((4, 8), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("dequantize", {q, V("si", Tensor({8}, "int32")), z}),  // scale must be float
                                "R.dequantize: scale must be float16 or float32, got int32"));
}

}  // namespace
}  // namespace kiln::relax::testing
