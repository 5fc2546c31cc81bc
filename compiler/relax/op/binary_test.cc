#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

TEST(Binary, SameShape) {
  EXPECT_EQ(Str(Infer("add", {V("x", Tensor({4, 8})), V("y", Tensor({4, 8}))})), "R.Tensor((4, 8), dtype=\"float32\")");
}

TEST(Binary, BroadcastConstantsAndRanks) {
  EXPECT_EQ(Str(Infer("multiply", {V("x", Tensor({2, 1, 4})), V("y", Tensor({3, 1}))})),
            "R.Tensor((2, 3, 4), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("add", {V("x", Tensor({3, 4})), V("s", Tensor({}))})), "R.Tensor((3, 4), dtype=\"float32\")");
}

TEST(Binary, BroadcastSymbolic) {
  ir::Var n = SymVar("n"), m = SymVar("m");
  EXPECT_EQ(Str(Infer("add", {V("x", Tensor({n, 4})), V("y", Tensor({1, 4}))})), "R.Tensor((n, 4), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("add", {V("x", Tensor({n, 4})), V("y", Tensor({n, 1}))})), "R.Tensor((n, 4), dtype=\"float32\")");
  // n vs m cannot be decided statically: rank known, shape unknown.
  EXPECT_EQ(Str(Infer("add", {V("x", Tensor({n})), V("y", Tensor({m}))})), "R.Tensor(ndim=1, dtype=\"float32\")");
  // n * 4 vs 4 * n after folding: equal.
  EXPECT_EQ(Str(Infer("add", {V("x", Tensor({ir::Mul(n, Dim(4))})), V("y", Tensor({ir::Mul(n, Dim(4))}))})),
            "R.Tensor((n * 4,), dtype=\"float32\")");
}

TEST(Binary, ImpossibleBroadcastIsRejected) {
  absl::StatusOr<ir::Type> t = Infer("add", {V("x", Tensor({3, 4})), V("y", Tensor({5, 4}))});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
  EXPECT_NE(t.status().message().find("broadcast"), std::string::npos) << t.status();
  EXPECT_NE(t.status().message().find("R.add"), std::string::npos);
}

TEST(Binary, DtypeRules) {
  EXPECT_EQ(Str(Infer("less", {V("x", Tensor({10})), V("y", Tensor({10}))})), "R.Tensor((10,), dtype=\"bool\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("add", {V("x", Tensor({2}, "float32")), V("y", Tensor({2}, "int32"))}),
                                "R.add: dtype mismatch: float32 vs int32"));
  // TVM: comparisons take any two dtypes; arithmetic with a bool operand takes the left dtype.
  EXPECT_EQ(Str(Infer("greater", {V("x", Tensor({2}, "bool")), V("y", Tensor({2}, "float32"))})),
            "R.Tensor((2,), dtype=\"bool\")");
  EXPECT_EQ(Str(Infer("add", {V("x", Tensor({2}, "int32")), V("y", Tensor({2}, "bool"))})),
            "R.Tensor((2,), dtype=\"int32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("bitwise_and", {V("x", Tensor({2})), V("y", Tensor({2}))}),
                                "R.bitwise_and: expects integer operands, got float32"));
  EXPECT_EQ(Str(Infer("left_shift", {V("x", Tensor({2}, "int32")), V("y", Tensor({2}, "int32"))})),
            "R.Tensor((2,), dtype=\"int32\")");
}

TEST(Binary, UnknownPartsPropagate) {
  EXPECT_EQ(Str(Infer("add", {V("x", TensorNdim(-1, "void")), V("y", Tensor({2}))})), "R.Tensor()");
  EXPECT_EQ(Str(Infer("add", {V("x", TensorNdim(2)), V("y", Tensor({2}))})), "R.Tensor(ndim=2, dtype=\"float32\")");
}

TEST(Binary, PrimOperands) {
  ir::Expr p = V("p", ir::PrimType(ir::DataType::Float(32)));
  EXPECT_EQ(Str(Infer("multiply", {p, p})), "R.Prim(\"float32\")");
  EXPECT_EQ(Str(Infer("multiply", {V("x", Tensor({3})), p})), "R.Tensor((3,), dtype=\"float32\")");
}

TEST(Binary, NonTensorOperandIsRejected) {
  EXPECT_TRUE(IsInvalidArgument(Infer("add", {V("x", Tensor({3})), Shape({3})}),
                                "R.add: expects a tensor for argument 'x2', got R.Shape([3])"));
}

TEST(Ternary, EwiseFma) {
  ir::Var a = V("a", Tensor({2, 3})), b = V("b", Tensor({2, 3})), c = V("c", Tensor({2, 3}));
  EXPECT_EQ(Str(Infer("ewise_fma", {a, b, c})), "R.Tensor((2, 3), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("ewise_fma", {a, b, V("d", Tensor({1, 3}))}),  // no broadcasting
                                "R.ewise_fma: the operands must have the same shape"));
  EXPECT_TRUE(IsInvalidArgument(Infer("ewise_fma", {a, b, V("d", Tensor({2, 3}, "float16"))}),
                                "R.ewise_fma: dtype mismatch: float32 vs float16"));
  EXPECT_TRUE(IsInvalidArgument(Infer("ewise_fma", {a, b, V("d", Tensor({6}))}),
                                "R.ewise_fma: the operands must have the same rank"));
}

}  // namespace
}  // namespace kiln::relax::testing
