#include "gtest/gtest.h"
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

std::string Lowered(const PrimExpr& e, const Var& loop_var = Var(), int64_t extent = 0) {
  Buffer b = Buffer::Make("B", {I32(1)}, e.dtype());
  Stmt s = BufferStore(b, e, {I32(0)});
  if (loop_var.defined()) s = For(loop_var, I32(0), I32(extent), ForKind::kSerial, s);
  PrimFunc f = LowerIntrin(PrimFunc({}, s));
  Stmt body = f->body;
  if (const auto* loop = body.as<ForNode>()) body = loop->body;
  return arith::ExprToString(body.as<BufferStoreNode>()->value);
}

TEST(LowerIntrinTest, PowerOfTwoBecomesShiftAndMask) {
  Var x("x", DataType::Int(32));
  EXPECT_EQ(Lowered(FloorDiv(x, I32(8))), "shift_right(x, 3)");
  EXPECT_EQ(Lowered(FloorMod(x, I32(8))), "bitwise_and(x, 7)");
}

TEST(LowerIntrinTest, NonNegativeDividendBecomesTruncDivision) {
  Var i("i", DataType::Int(32));
  EXPECT_EQ(Lowered(FloorDiv(i, I32(3)), i, 10), "truncdiv(i, 3)");
  EXPECT_EQ(Lowered(FloorMod(i, I32(3)), i, 10), "truncmod(i, 3)");
  Var u("u", DataType::UInt(32));
  EXPECT_EQ(Lowered(FloorDiv(u, Var("v", DataType::UInt(32)))), "truncdiv(u, v)");
}

TEST(LowerIntrinTest, OtherwiseFloorDivisionStays) {
  Var x("x", DataType::Int(32)), y("y", DataType::Int(32));
  EXPECT_EQ(Lowered(FloorDiv(x, I32(3))), "floordiv(x, 3)");
  EXPECT_EQ(Lowered(FloorMod(x, y)), "floormod(x, y)");
  Var f("f", DataType::Float(32));
  EXPECT_EQ(Lowered(FloorDiv(f, FloatImm(DataType::Float(32), 2))), "floordiv(f, 2)");
}

}  // namespace
}  // namespace kiln::tir::transform
