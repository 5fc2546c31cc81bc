#include "compiler/relax/op/infer_util.h"

#include <cstdint>

#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

TEST(Dims, FoldingAndEquality) {
  ir::Var n = SymVar("n");
  EXPECT_EQ(DimToString(Simplify(ir::Add(Dim(2), Dim(3)))), "5");
  EXPECT_EQ(DimToString(Simplify(ir::Mul(ir::Mul(n, Dim(6)), Dim(1)))), "n * 6");
  EXPECT_EQ(DimToString(FloorDivDim(MulDim(n, Dim(6)), Dim(3))), "n * 2");
  EXPECT_EQ(DimToString(SubDim(AddDim(n, Dim(3)), Dim(1))), "n + 2");
  EXPECT_EQ(DimToString(Simplify(ir::Sub(ir::Add(n, Dim(1)), Dim(1)))), "n");
  EXPECT_TRUE(ProveEqual(ir::Mul(Dim(4), n), ir::Mul(n, Dim(4))));
  EXPECT_TRUE(ProveEqual(ir::IntImm(ir::DataType::Int(32), 4), Dim(4)));
  EXPECT_FALSE(ProveEqual(n, SymVar("n")));  // a different variable of the same name
  EXPECT_TRUE(ProveNotEqual(Dim(3), Dim(4)));
  EXPECT_FALSE(ProveNotEqual(n, Dim(4)));
}

// Found by the parser fuzzer: R.reshape of R.Tensor((2, 9223372036854775807)) multiplied the dims
// with signed overflow. Folding now stops short of it and keeps the expression.
TEST(Dims, FoldingNeverOverflows) {
  const int64_t kMax = INT64_MAX;
  EXPECT_EQ(DimToString(MulDim(Dim(2), Dim(kMax))), "2 * 9223372036854775807");
  EXPECT_EQ(DimToString(AddDim(Dim(kMax), Dim(1))), "9223372036854775807 + 1");
  EXPECT_EQ(DimToString(SubDim(Dim(INT64_MIN), Dim(1))), "-9223372036854775808 - 1");
  EXPECT_EQ(DimToString(MulDim(Dim(3), Dim(4))), "12");
  EXPECT_EQ(Str(Infer("reshape", {V("x", Tensor({2, kMax})), Shape({kMax, 2})})),
            "R.Tensor((9223372036854775807, 2), dtype=\"float32\")");
}

TEST(Dims, Substitute) {
  ir::Var n = SymVar("n");
  std::unordered_map<const ir::VarNode*, ir::PrimExpr> m = {{n.get(), Dim(8)}};
  EXPECT_EQ(DimToString(Substitute(ir::Add(ir::Mul(n, Dim(2)), Dim(1)), m)), "17");
  std::vector<ir::Var> vars;
  CollectTypeVars(Tensor({n, ir::Mul(n, SymVar("k"))}), &vars);
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars[0].name(), "n");
  EXPECT_EQ(vars[1].name(), "k");
}

TEST(Broadcast, Shapes) {
  bool unknown = false;
  absl::StatusOr<std::vector<ir::PrimExpr>> s = BroadcastShapes("x", {Dim(5), Dim(1)}, {Dim(3)}, &unknown);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(ShapeToString(*s), "(5, 3)");
  EXPECT_FALSE(unknown);
  EXPECT_TRUE(IsInvalidArgument(BroadcastShapes("x", {Dim(2)}, {Dim(3)}, &unknown),
                                "R.x: cannot broadcast shapes (2,) and (3,): dimension 2 vs 3"));
}

TEST(Axes, Normalize) {
  EXPECT_EQ(*NormalizeAxis("x", -1, 3), 2);
  EXPECT_TRUE(IsInvalidArgument(NormalizeAxis("x", 3, 3), "R.x: axis 3 is out of range for a tensor of rank 3"));
  EXPECT_TRUE(IsInvalidArgument(NormalizeAxes("x", {0, -3}, 3), "R.x: axis -3 appears more than once"));
}

TEST(Spelling, Types) {
  EXPECT_EQ(TypeToString(Tensor({SymVar("n"), 4})), "R.Tensor((n, 4), dtype=\"float32\")");
  EXPECT_EQ(TypeToString(ir::TupleType({ir::ShapeType(2), ir::PrimType(ir::DataType::Int(64))})),
            "R.Tuple(R.Shape(ndim=2), R.Prim(\"int64\"))");
}

}  // namespace
}  // namespace kiln::relax::testing
