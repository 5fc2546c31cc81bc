#include "compiler/tir/arith/analyzer.h"

#include "gtest/gtest.h"

namespace kiln::arith {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }
PrimExpr I64(int64_t v) { return IntImm(DataType::Int(64), v); }
PrimExpr F32(double v) { return FloatImm(DataType::Float(32), v); }

std::string S(Analyzer* a, const PrimExpr& e) { return ExprToString(a->Simplify(e)); }

TEST(ConstFoldTest, IntegersWrapToTheirWidth) {
  Analyzer a;
  EXPECT_EQ(S(&a, Add(IntImm(DataType::Int(8), 100), IntImm(DataType::Int(8), 100))), "int8(-56)");
  EXPECT_EQ(S(&a, Mul(IntImm(DataType::UInt(8), 16), IntImm(DataType::UInt(8), 17))), "uint8(16)");
  EXPECT_EQ(S(&a, Sub(IntImm(DataType::UInt(32), 0), IntImm(DataType::UInt(32), 1))), "uint32(4294967295)");
  EXPECT_EQ(S(&a, Add(I32(2147483647), I32(1))), "-2147483648");
  EXPECT_EQ(S(&a, Mul(I64(int64_t{1} << 62), I64(4))), "int64(0)");
}

TEST(ConstFoldTest, DivisionFlavours) {
  Analyzer a;
  EXPECT_EQ(S(&a, FloorDiv(I32(-7), I32(2))), "-4");
  EXPECT_EQ(S(&a, FloorMod(I32(-7), I32(2))), "1");
  EXPECT_EQ(S(&a, Div(I32(-7), I32(2))), "-3");
  EXPECT_EQ(S(&a, Mod(I32(-7), I32(2))), "-1");
  EXPECT_EQ(S(&a, FloorMod(I32(7), I32(-2))), "-1");
  EXPECT_EQ(S(&a, Div(I32(-2147483648), I32(-1))), "-2147483648");
  // Division by zero is left for run time.
  EXPECT_EQ(S(&a, FloorDiv(I32(1), I32(0))), "floordiv(1, 0)");
}

TEST(ConstFoldTest, FloatsFoldInTheirPrecision) {
  Analyzer a;
  PrimExpr r = a.Simplify(Add(F32(0.1), F32(0.2)));
  ASSERT_NE(r.as<FloatImmNode>(), nullptr);
  EXPECT_EQ(r.as<FloatImmNode>()->value, static_cast<double>(0.1f + 0.2f));
  Var x("x", DataType::Float(32));
  EXPECT_EQ(S(&a, Mul(x, F32(1.0))), "x");
  // x + 0.0 is not x for x = -0.0, so it stays.
  EXPECT_EQ(S(&a, Add(x, F32(0.0))), "x + 0");
  EXPECT_EQ(S(&a, LT(F32(1.0), F32(2.0))), "True");
}

TEST(CanonicalTest, CollectsLikeTerms) {
  Analyzer a;
  Var i("i", DataType::Int(32)), j("j", DataType::Int(32)), n("n", DataType::Int(32));
  EXPECT_EQ(S(&a, Add(Mul(i, I32(1)), I32(0))), "i");
  EXPECT_EQ(S(&a, Sub(Add(Mul(i, I32(16)), j), Mul(i, I32(16)))), "j");
  EXPECT_EQ(S(&a, Add(Add(i, I32(3)), Add(Mul(I32(2), i), I32(-5)))), "i * 3 - 2");
  EXPECT_EQ(S(&a, Sub(I32(15), i)), "15 - i");
  EXPECT_EQ(S(&a, Mul(Add(i, I32(1)), I32(4))), "i * 4 + 4");
  EXPECT_EQ(S(&a, Sub(Mul(n, i), Mul(i, n))), "n * i - i * n");  // atoms compare structurally
  EXPECT_EQ(S(&a, Sub(Mul(n, i), Mul(n, i))), "0");
  EXPECT_EQ(S(&a, Sub(I32(0), Sub(i, j))), "j - i");
}

TEST(CanonicalTest, NarrowTypesCollectWithWrap) {
  Analyzer a;
  Var x("x", DataType::Int(8));
  // x * 100 + x * 100 = x * 200 = x * -56 in int8.
  EXPECT_EQ(S(&a, Add(Mul(x, IntImm(DataType::Int(8), 100)), Mul(x, IntImm(DataType::Int(8), 100)))),
            "int8(0) - x * int8(56)");
}

TEST(BoundTest, LoopVarsAndArithmetic) {
  Analyzer a;
  Var i("i", DataType::Int(32)), j("j", DataType::Int(32));
  a.BindRange(i, I32(0), I32(16));
  a.BindRange(j, I32(2), I32(8));
  EXPECT_EQ(a.GetConstIntBound(Add(Mul(i, I32(8)), j)), (ConstIntBound{2, 129}));
  EXPECT_EQ(a.GetConstIntBound(Sub(i, j)), (ConstIntBound{-9, 13}));
  EXPECT_EQ(a.GetConstIntBound(FloorMod(j, I32(4))), (ConstIntBound{0, 3}));
  EXPECT_EQ(a.GetConstIntBound(FloorDiv(i, I32(4))), (ConstIntBound{0, 3}));
  EXPECT_EQ(a.GetConstIntBound(Min(i, j)), (ConstIntBound{0, 9}));
  Var b("b", DataType::Int(8));
  // b + 1 may wrap: the bound is the whole int8 range.
  EXPECT_EQ(a.GetConstIntBound(Add(b, IntImm(DataType::Int(8), 1))), (ConstIntBound{-128, 127}));
  EXPECT_EQ(a.GetConstIntBound(Cast(DataType::Int(32), b)), (ConstIntBound{-128, 127}));
  EXPECT_EQ(a.GetConstIntBound(Cast(DataType::UInt(8), Add(i, I32(300)))), (ConstIntBound{0, 255}));
  SizeVar n("n", DataType::Int(32));
  EXPECT_EQ(a.GetConstIntBound(n).min_value, 0);
  // uint64 values above INT64_MAX wrap negative in int64: the cast may be any int64.
  Var u("u", DataType::UInt(64));
  ConstIntBound any64 = a.GetConstIntBound(Var("w", DataType::Int(64)));
  EXPECT_EQ(a.GetConstIntBound(Cast(DataType::Int(64), u)), any64);
  EXPECT_EQ(a.GetConstIntBound(Cast(DataType::Int(64), Cast(DataType::UInt(32), u))), (ConstIntBound{0, 4294967295}));
}

TEST(RewriteTest, FloorDivModOfLinearByConstant) {
  Analyzer a;
  Var i("i", DataType::Int(32)), j("j", DataType::Int(32)), n("n", DataType::Int(32));
  a.BindRange(i, I32(-4), I32(8));
  a.BindRange(j, I32(0), I32(8));
  a.BindRange(n, I32(-1000), I32(2000));
  PrimExpr flat = Add(Mul(i, I32(8)), j);
  EXPECT_EQ(S(&a, FloorDiv(flat, I32(8))), "i");
  EXPECT_EQ(S(&a, FloorMod(flat, I32(8))), "j");
  EXPECT_EQ(S(&a, FloorDiv(Add(flat, I32(17)), I32(8))), "i + floordiv(j + 1, 8) + 2");
  EXPECT_EQ(S(&a, FloorMod(Add(Mul(i, I32(16)), I32(5)), I32(8))), "5");
  // Unknown remainder: the division stays, with the multiples of 8 moved out.
  EXPECT_EQ(S(&a, FloorDiv(Add(Mul(i, I32(8)), n), I32(8))), "i + floordiv(n, 8)");
  // Trunc division is only split when the dividend is provably non-negative.
  EXPECT_EQ(S(&a, Div(flat, I32(8))), "truncdiv(i * 8 + j, 8)");
  a.BindRange(i, I32(0), I32(4));
  EXPECT_EQ(S(&a, Div(flat, I32(8))), "i");
  EXPECT_EQ(S(&a, Mod(flat, I32(8))), "j");
}

TEST(RewriteTest, DivisionRewritesNeedNoWrap) {
  Analyzer a;
  Var x("x", DataType::Int(32)), y("y", DataType::Int(32));
  // x * 2 wraps for x = 2^30 (floordiv(-2^31, 2) = -2^30 != x): nothing to rewrite.
  EXPECT_EQ(S(&a, FloorDiv(Mul(x, I32(2)), I32(2))), "floordiv(x * 2, 2)");
  EXPECT_EQ(S(&a, FloorMod(Add(Mul(x, I32(8)), y), I32(8))), "floormod(x * 8 + y, 8)");
  a.BindRange(x, I32(-1000), I32(2000));
  EXPECT_EQ(S(&a, FloorDiv(Mul(x, I32(2)), I32(2))), "x");
  // x * 8 + y wraps for large y.
  EXPECT_EQ(S(&a, FloorMod(Add(Mul(x, I32(8)), y), I32(8))), "floormod(x * 8 + y, 8)");
  a.BindRange(y, I32(0), I32(100));
  EXPECT_EQ(S(&a, FloorMod(Add(Mul(x, I32(8)), y), I32(8))), "floormod(y, 8)");
}

TEST(RewriteTest, MinMaxAndComparisons) {
  Analyzer a;
  Var i("i", DataType::Int(32)), n("n", DataType::Int(32));
  a.BindRange(i, I32(0), I32(16));
  EXPECT_EQ(S(&a, Min(I32(3), I32(-2))), "-2");
  EXPECT_EQ(S(&a, Max(i, I32(20))), "20");
  EXPECT_EQ(S(&a, Min(i, I32(15))), "i");
  EXPECT_EQ(S(&a, Min(i, n)), "min(i, n)");
  EXPECT_EQ(S(&a, LT(i, I32(16))), "True");
  EXPECT_EQ(S(&a, GE(i, I32(1))), "i >= 1");
  // n + 1 wraps for n = INT32_MAX, so n + 1 < n may hold.
  EXPECT_EQ(S(&a, LT(Add(n, I32(1)), n)), "n + 1 < n");
  EXPECT_EQ(S(&a, LT(Add(i, I32(1)), i)), "False");
  EXPECT_EQ(S(&a, EQ(Sub(Add(n, i), i), n)), "True");
  EXPECT_EQ(S(&a, And(LT(i, I32(16)), GE(n, I32(0)))), "n >= 0");
  EXPECT_EQ(S(&a, Or(LT(i, I32(0)), GE(n, I32(0)))), "n >= 0");
  EXPECT_EQ(S(&a, Not(LT(n, I32(3)))), "n >= 3");
  EXPECT_TRUE(a.CanProve(LE(Add(Mul(i, I32(2)), I32(1)), I32(31))));
  EXPECT_FALSE(a.CanProve(LE(Add(Mul(i, I32(2)), I32(1)), I32(30))));
  EXPECT_TRUE(a.CanProveEqual(Mul(Add(n, I32(1)), I32(2)), Add(Add(n, n), I32(2))));
  // Narrow types use only the bounds of both sides (no overflow assumption).
  Var b("b", DataType::Int(8));
  EXPECT_EQ(S(&a, LT(Add(b, IntImm(DataType::Int(8), 1)), b)), "b + int8(1) < b");
  EXPECT_EQ(S(&a, LE(Cast(DataType::Int(32), b), I32(127))), "True");
  a.BindRange(b, IntImm(DataType::Int(8), 0), IntImm(DataType::Int(8), 100));
  EXPECT_EQ(S(&a, LT(Add(b, IntImm(DataType::Int(8), 1)), b)), "False");
}

// Differential seed 2070: c - i - 2147483647 wraps for i >= 2 (c a bool cast), so the max is not
// decided by the difference -3 + j - (c - i - 2147483647), whose bound alone says "first operand".
TEST(RewriteTest, MinMaxSoundUnderWrap) {
  Analyzer a;
  Var i("i", DataType::Int(32)), j("j", DataType::Int(32)), c("c", DataType::Int(32));
  a.BindRange(i, I32(0), I32(3));
  a.BindRange(j, I32(0), I32(2));
  a.BindRange(c, I32(0), I32(2));
  PrimExpr lhs = Add(I32(-3), j), rhs = Sub(Sub(c, i), I32(2147483647));
  EXPECT_EQ(S(&a, Max(lhs, rhs)), "max(j - 3, c - i - 2147483647)");
  // Without the wrap (i = 0 only) the difference decides it.
  Analyzer b;
  b.BindRange(i, I32(0), I32(1));
  b.BindRange(j, I32(0), I32(2));
  b.BindRange(c, I32(0), I32(2));
  EXPECT_EQ(S(&b, Max(lhs, Sub(c, I32(2147483647)))), "j - 3");
  // Symbolic extents: n - 1 and n - 2 cannot wrap for n >= 0.
  SizeVar n("n", DataType::Int(32));
  EXPECT_EQ(S(&a, Min(Sub(n, I32(1)), Sub(n, I32(2)))), "n - 2");
}

TEST(RewriteTest, SelectIfThenElseAndCasts) {
  Analyzer a;
  Var x("x", DataType::Int(32)), f("f", DataType::Float(32));
  EXPECT_EQ(S(&a, Select(LT(I32(1), I32(2)), x, Add(x, I32(1)))), "x");
  EXPECT_EQ(S(&a, Select(LT(x, I32(2)), f, f)), "f");
  PrimExpr ite = Call(DataType::Float(32), Op("tirx.if_then_else"), {EQ(I32(0), I32(1)), f, F32(2.0)});
  EXPECT_EQ(S(&a, ite), "2");
  EXPECT_EQ(S(&a, Cast(DataType::Int(32), Cast(DataType::Int(64), x))), "x");
  EXPECT_EQ(S(&a, Cast(DataType::Int(64), Cast(DataType::Int(32), Var("s", DataType::Int(16))))), "int64(s)");
  // Narrowing in the middle loses bits: kept.
  EXPECT_EQ(S(&a, Cast(DataType::Int(32), Cast(DataType::Int(8), x))), "int32(int8(x))");
  EXPECT_EQ(S(&a, Cast(DataType::Int(8), I32(300))), "int8(44)");
  EXPECT_EQ(S(&a, Cast(DataType::Float(32), I32(3))), "3");
  EXPECT_EQ(S(&a, Cast(DataType::Int(32), x)), "x");
}

TEST(RewriteTest, RampAndBroadcastArithmetic) {
  Analyzer a;
  Var i("i", DataType::Int(32));
  PrimExpr r = Add(Broadcast(Mul(i, I32(8)), 4), Ramp(I32(0), I32(1), 4));
  EXPECT_EQ(S(&a, r), "ramp(i * 8, 1, 4)");
  EXPECT_EQ(S(&a, Mul(Ramp(i, I32(1), 4), Broadcast(I32(3), 4))), "ramp(i * 3, 3, 4)");
  EXPECT_EQ(S(&a, Ramp(i, I32(0), 4)), "broadcast(i, 4)");
  EXPECT_EQ(S(&a, Add(Broadcast(I32(1), 4), Broadcast(I32(2), 4))), "broadcast(3, 4)");
}

}  // namespace
}  // namespace kiln::arith
