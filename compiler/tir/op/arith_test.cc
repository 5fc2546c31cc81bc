#include "compiler/tir/op/arith.h"

#include "gtest/gtest.h"

namespace kiln::tir {
namespace {

using ir::DataType;
using ir::PrimExpr;
using ir::Var;

PrimExpr Ok(absl::StatusOr<PrimExpr> r) {
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : PrimExpr();
}

std::string Err(absl::StatusOr<PrimExpr> r) {
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(r.status().message());
}

TEST(ArithTest, IntLiteralAdoptsOtherSide) {
  Var x("x", DataType::Int(8));
  PrimExpr e = Ok(BinaryOp(BinaryOpKind::kAdd, x, Operand::IntLiteral(3)));
  const auto* add = e.as<ir::AddNode>();
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(e.dtype(), DataType::Int(8));
  EXPECT_TRUE(add->a.same_as(x));
  const auto* imm = add->b.as<ir::IntImmNode>();
  ASSERT_NE(imm, nullptr);
  EXPECT_EQ(imm->dtype, DataType::Int(8));
  EXPECT_EQ(imm->value, 3);

  // On the left too, and for floats.
  Var f("f", DataType::Float(16));
  PrimExpr g = Ok(BinaryOp(BinaryOpKind::kMul, Operand::IntLiteral(2), f));
  EXPECT_EQ(g.dtype(), DataType::Float(16));
  const auto* fimm = g.as<ir::MulNode>()->a.as<ir::FloatImmNode>();
  ASSERT_NE(fimm, nullptr);
  EXPECT_EQ(fimm->dtype, DataType::Float(16));
  EXPECT_EQ(fimm->value, 2.0);
}

TEST(ArithTest, OperatorsFoldLikeTvmOperatorFunctions) {
  Var i("i", DataType::Int(32));
  auto imm = [](const PrimExpr& e) { return e.as<ir::IntImmNode>(); };
  // Immediates are computed in the operand dtype, wrapping like TVM's folded IntImm.
  PrimExpr seven = Ok(BinaryOp(BinaryOpKind::kAdd, ir::IntImm(DataType::Int(32), 3), Operand::IntLiteral(4)));
  ASSERT_NE(imm(seven), nullptr);
  EXPECT_EQ(imm(seven)->value, 7);
  PrimExpr wrapped = Ok(BinaryOp(BinaryOpKind::kAdd, ir::IntImm(DataType::Int(8), 127), Operand::IntLiteral(1)));
  EXPECT_EQ(imm(wrapped)->value, -128);
  EXPECT_EQ(imm(Ok(BinaryOp(BinaryOpKind::kFloorDiv, ir::IntImm(DataType::Int(32), -7), Operand::IntLiteral(2))))->value, -4);
  EXPECT_EQ(imm(Ok(BinaryOp(BinaryOpKind::kDiv, ir::IntImm(DataType::Int(32), -7), Operand::IntLiteral(2))))->value, -3);
  EXPECT_EQ(imm(Ok(BinaryOp(BinaryOpKind::kFloorMod, ir::IntImm(DataType::Int(32), -7), Operand::IntLiteral(2))))->value, 1);
  EXPECT_EQ(imm(Ok(BinaryOp(BinaryOpKind::kMax, ir::IntImm(DataType::Int(64), 2), Operand::IntLiteral(9))))->value, 9);
  // Identities return the other operand.
  EXPECT_TRUE(Ok(BinaryOp(BinaryOpKind::kMul, i, Operand::IntLiteral(1))).same_as(i));
  EXPECT_TRUE(Ok(BinaryOp(BinaryOpKind::kAdd, Operand::IntLiteral(0), i)).same_as(i));
  EXPECT_TRUE(Ok(BinaryOp(BinaryOpKind::kSub, i, Operand::IntLiteral(0))).same_as(i));
  EXPECT_TRUE(Ok(BinaryOp(BinaryOpKind::kFloorDiv, i, Operand::IntLiteral(1))).same_as(i));
  EXPECT_TRUE(Ok(BinaryOp(BinaryOpKind::kMin, i, i)).same_as(i));
  EXPECT_EQ(imm(Ok(BinaryOp(BinaryOpKind::kFloorMod, i, Operand::IntLiteral(1))))->value, 0);
  // 0 - i is kept (only a zero right operand is an identity), as are comparisons of immediates.
  EXPECT_NE(Ok(BinaryOp(BinaryOpKind::kSub, Operand::IntLiteral(0), i)).as<ir::SubNode>(), nullptr);
  EXPECT_NE(Ok(BinaryOp(BinaryOpKind::kLT, ir::IntImm(DataType::Int(32), 1), Operand::IntLiteral(2))).as<ir::LTNode>(), nullptr);
  // float32 immediates fold in single precision; float16 ones are kept.
  PrimExpr f = Ok(BinaryOp(BinaryOpKind::kAdd, ir::FloatImm(DataType::Float(32), 0.1), Operand::FloatLiteral(0.2)));
  ASSERT_NE(f.as<ir::FloatImmNode>(), nullptr);
  EXPECT_EQ(f.as<ir::FloatImmNode>()->value, static_cast<double>(0.1f + 0.2f));
  EXPECT_NE(Ok(BinaryOp(BinaryOpKind::kAdd, ir::FloatImm(DataType::Float(16), 1.0), Operand::FloatLiteral(2.0))).as<ir::AddNode>(), nullptr);
  // truncmod folds only on index types.
  EXPECT_NE(Ok(BinaryOp(BinaryOpKind::kMod, ir::IntImm(DataType::Int(8), 7), Operand::IntLiteral(2))).as<ir::ModNode>(), nullptr);
  EXPECT_EQ(Err(BinaryOp(BinaryOpKind::kFloorDiv, i, Operand::IntLiteral(0))), "division by zero");
  // The node constructors build what they are given.
  EXPECT_NE(Ok(MakeBinaryNode(BinaryOpKind::kAdd, i, Operand::IntLiteral(0))).as<ir::AddNode>(), nullptr);
}

TEST(ArithTest, LiteralOutOfRangeIsAnError) {
  Var x("x", DataType::Int(8));
  EXPECT_NE(Err(BinaryOp(BinaryOpKind::kAdd, x, Operand::IntLiteral(300))).find("does not fit in int8"),
            std::string::npos);
  Var u("u", DataType::UInt(8));
  Err(BinaryOp(BinaryOpKind::kAdd, u, Operand::IntLiteral(-1)));
}

TEST(ArithTest, FloatLiteralWithIntExprPromotesToFloat32) {
  Var i("i", DataType::Int(32));
  PrimExpr e = Ok(BinaryOp(BinaryOpKind::kAdd, i, Operand::FloatLiteral(0.5)));
  EXPECT_EQ(e.dtype(), DataType::Float(32));
  const auto* add = e.as<ir::AddNode>();
  const auto* cast = add->a.as<ir::CastNode>();
  ASSERT_NE(cast, nullptr);
  EXPECT_TRUE(cast->value.same_as(i));
  EXPECT_EQ(add->b.as<ir::FloatImmNode>()->value, 0.5);
}

TEST(ArithTest, IntVsFloatCastsIntSide) {
  Var i("i", DataType::Int(32));
  Var f("f", DataType::Float(64));
  PrimExpr e = Ok(BinaryOp(BinaryOpKind::kSub, f, i));
  EXPECT_EQ(e.dtype(), DataType::Float(64));
  const auto* cast = e.as<ir::SubNode>()->b.as<ir::CastNode>();
  ASSERT_NE(cast, nullptr);
  EXPECT_EQ(cast->dtype, DataType::Float(64));
}

TEST(ArithTest, Int32VsInt64PromotesAndFoldsImmediates) {
  Var n("n", DataType::Int(64));
  PrimExpr one = ir::IntImm(DataType::Int(32), 1);
  PrimExpr e = Ok(BinaryOp(BinaryOpKind::kLT, one, n));
  EXPECT_EQ(e.dtype(), DataType::Bool());
  const auto* lt = e.as<ir::LTNode>();
  const auto* imm = lt->a.as<ir::IntImmNode>();
  ASSERT_NE(imm, nullptr) << "cast of an immediate folds";
  EXPECT_EQ(imm->dtype, DataType::Int(64));

  Var i("i", DataType::Int(32));
  PrimExpr m = Ok(BinaryOp(BinaryOpKind::kMul, i, n));
  EXPECT_EQ(m.dtype(), DataType::Int(64));
  EXPECT_NE(m.as<ir::MulNode>()->a.as<ir::CastNode>(), nullptr);
}

TEST(ArithTest, MixedTypesPromoteAsTvm) {
  // TVM's BinaryOpMatchTypes: the narrower float widens; int vs uint of one width is unsigned.
  Var h("h", DataType::Float(16)), f("f", DataType::Float(32));
  PrimExpr hf = Ok(BinaryOp(BinaryOpKind::kAdd, h, f));
  EXPECT_EQ(hf.dtype(), DataType::Float(32));
  EXPECT_NE(hf.as<ir::AddNode>()->a.as<ir::CastNode>(), nullptr);
  EXPECT_EQ(Ok(BinaryOp(BinaryOpKind::kMax, f, h)).dtype(), DataType::Float(32));
  Var i("i", DataType::Int(32)), u("u", DataType::UInt(32)), u8("u8", DataType::UInt(8));
  EXPECT_EQ(Ok(BinaryOp(BinaryOpKind::kAdd, i, u)).dtype(), DataType::UInt(32));
  EXPECT_EQ(Ok(BinaryOp(BinaryOpKind::kAdd, i, u8)).dtype(), DataType::Int(32));
  EXPECT_EQ(Ok(BinaryOp(BinaryOpKind::kAdd, i, h)).dtype(), DataType::Float(16));
}

TEST(ArithTest, MismatchedTypesAreErrors) {
  Var i("i", DataType::Int(32));
  Var p("p", DataType::Handle());
  Err(BinaryOp(BinaryOpKind::kAdd, p, i));
  Err(BinaryOp(BinaryOpKind::kEQ, p, p));
}

TEST(ArithTest, ScalarsBroadcastToVectorLanes) {
  Var v("v", DataType::Float(32, 4));
  Var s("s", DataType::Float(32));
  PrimExpr e = Ok(BinaryOp(BinaryOpKind::kAdd, s, v));
  EXPECT_EQ(e.dtype(), DataType::Float(32, 4));
  const auto* b = e.as<ir::AddNode>()->a.as<ir::BroadcastNode>();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->lanes, 4);
  EXPECT_TRUE(b->value.same_as(s));

  PrimExpr lit = Ok(BinaryOp(BinaryOpKind::kMul, v, Operand::IntLiteral(2)));
  const auto* lb = lit.as<ir::MulNode>()->b.as<ir::BroadcastNode>();
  ASSERT_NE(lb, nullptr);
  EXPECT_EQ(lb->value.as<ir::FloatImmNode>()->value, 2.0);

  Var w("w", DataType::Float(32, 8));
  EXPECT_EQ(Err(BinaryOp(BinaryOpKind::kAdd, v, w)), "mismatched lanes: float32x4 vs float32x8");
}

TEST(ArithTest, ComparisonsProduceBoolWithLanes) {
  Var v("v", DataType::Int(32, 4));
  PrimExpr e = Ok(BinaryOp(BinaryOpKind::kGE, v, Operand::IntLiteral(0)));
  EXPECT_EQ(e.dtype(), DataType::Bool(4));
}

TEST(ArithTest, LogicalOpsRequireBool) {
  Var a("a", DataType::Bool()), i("i", DataType::Int(32));
  PrimExpr e = Ok(BinaryOp(BinaryOpKind::kAnd, a, Operand::BoolLiteral(true)));
  EXPECT_NE(e.as<ir::AndNode>(), nullptr);
  EXPECT_EQ(e.dtype(), DataType::Bool());
  EXPECT_EQ(Err(BinaryOp(BinaryOpKind::kOr, a, i)), "or expects bool operands, got int32");
  PrimExpr n = Ok(LogicalNot(a));
  EXPECT_NE(n.as<ir::NotNode>(), nullptr);
  Err(LogicalNot(i));
  EXPECT_EQ(Ok(LogicalNot(Operand::BoolLiteral(true))).as<ir::IntImmNode>()->value, 0);
}

TEST(ArithTest, TruncModRejectsFloats) {
  Var f("f", DataType::Float(32));
  Err(BinaryOp(BinaryOpKind::kMod, f, f));
  EXPECT_NE(Ok(BinaryOp(BinaryOpKind::kFloorMod, f, f)).as<ir::FloorModNode>(), nullptr);
}

TEST(ArithTest, NegateFoldsImmediates) {
  EXPECT_EQ(Ok(Negate(PrimExpr(ir::IntImm(DataType::Int(64), 5)))).as<ir::IntImmNode>()->value, -5);
  Var x("x", DataType::Float(32));
  PrimExpr n = Ok(Negate(x));
  const auto* sub = n.as<ir::SubNode>();
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->a.as<ir::FloatImmNode>()->value, 0.0);
}

TEST(ArithTest, SelectDoesNotPromote) {
  Var c("c", DataType::Bool());
  Var f("f", DataType::Float(32)), i("i", DataType::Int(32));
  EXPECT_EQ(Err(MakeSelect(c, f, i)), "mismatched types: float32 vs int32");
  PrimExpr s = Ok(MakeSelect(c, f, Operand::IntLiteral(0)));
  EXPECT_EQ(s.dtype(), DataType::Float(32));
  EXPECT_EQ(s.as<ir::SelectNode>()->false_value.as<ir::FloatImmNode>()->dtype, DataType::Float(32));
  Err(MakeSelect(i, f, f));
}

TEST(ArithTest, TwoLiteralsUsePythonDefaults) {
  PrimExpr e = Ok(BinaryOp(BinaryOpKind::kAdd, Operand::IntLiteral(1), Operand::FloatLiteral(2.5)));
  EXPECT_EQ(e.dtype(), DataType::Float(32));
  PrimExpr big = Ok(BinaryOp(BinaryOpKind::kAdd, Operand::IntLiteral(int64_t{1} << 40), Operand::IntLiteral(1)));
  EXPECT_EQ(big.dtype(), DataType::Int(64));
}

TEST(ArithTest, CastToBroadcastsAndRejectsLaneChanges) {
  Var s("s", DataType::Int(32));
  PrimExpr b = Ok(CastTo(DataType::Float(32, 4), s));
  EXPECT_NE(b.as<ir::BroadcastNode>(), nullptr);
  EXPECT_EQ(b.dtype(), DataType::Float(32, 4));
  Var v("v", DataType::Int(32, 4));
  Err(CastTo(DataType::Int(32, 8), v));
}

}  // namespace
}  // namespace kiln::tir
