#include "compiler/tir/op/builtin.h"

#include "gtest/gtest.h"

namespace kiln::tir {
namespace {

using ir::DataType;
using ir::PrimExpr;
using ir::Var;

std::string Err(absl::StatusOr<PrimExpr> r) {
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(r.status().message());
}

TEST(MakeCallTest, MathTakesArgumentDtype) {
  Var x("x", DataType::Float(16));
  ir::Span span;
  span.line = 3;
  span.column = 7;
  absl::StatusOr<PrimExpr> r = MakeCall("exp", {x}, std::nullopt, span);
  ASSERT_TRUE(r.ok()) << r.status();
  const auto* call = r->as<ir::CallNode>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->dtype, DataType::Float(16));
  EXPECT_EQ(call->op.as<ir::OpNode>()->name, "tirx.exp");
  EXPECT_EQ(call->span.line, 3);
  EXPECT_EQ(Err(MakeCall("exp", {Var("i", DataType::Int(32))})),
            "T.exp expects a floating-point argument, got int32");
}

TEST(MakeCallTest, ArityMessages) {
  Var c("c", DataType::Bool()), a("a", DataType::Float(32));
  EXPECT_EQ(Err(MakeCall("if_then_else", {c, a})), "T.if_then_else expects 3 arguments, got 2");
  EXPECT_EQ(Err(MakeCall("sqrt", {a, a})), "T.sqrt expects 1 argument, got 2");
  EXPECT_EQ(Err(MakeCall("call_extern", {}, DataType::Float(32))),
            "T.call_extern expects at least 1 argument, got 0");
  EXPECT_EQ(Err(MakeCall("tvm_storage_sync", {})), "T.tvm_storage_sync expects 1 to 3 arguments, got 0");
  EXPECT_EQ(Err(MakeCall("no_such_thing", {a})), "unknown TIR intrinsic T.no_such_thing");
}

TEST(MakeCallTest, IfThenElseUnifiesBranches) {
  Var c("c", DataType::Bool()), a("a", DataType::Float(32));
  absl::StatusOr<PrimExpr> r = MakeCall("if_then_else", {c, a, Operand::IntLiteral(0)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dtype(), DataType::Float(32));
  EXPECT_EQ(r->as<ir::CallNode>()->args[2].as<ir::FloatImmNode>()->dtype, DataType::Float(32));
  Var i("i", DataType::Int(32));
  EXPECT_EQ(Err(MakeCall("if_then_else", {i, a, a})), "T.if_then_else condition must be bool, got int32");
  Var h("h", DataType::Float(16));
  // Mixed float widths promote to the wider, as TVM's BinaryOpMatchTypes does.
  absl::StatusOr<PrimExpr> mixed = MakeCall("if_then_else", {c, a, h});
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_EQ(mixed->dtype(), DataType::Float(32));
}

TEST(MakeCallTest, BitwiseUnifiesAndRequiresIntegers) {
  Var x("x", DataType::Int(16));
  absl::StatusOr<PrimExpr> r = MakeCall("shift_left", {x, Operand::IntLiteral(2)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dtype(), DataType::Int(16));
  EXPECT_EQ(r->as<ir::CallNode>()->args[1].dtype(), DataType::Int(16));
  Var f("f", DataType::Float(32));
  EXPECT_EQ(Err(MakeCall("bitwise_and", {f, f})), "T.bitwise_and expects integer arguments, got float32");
  Var u("u", DataType::UInt(8));
  absl::StatusOr<PrimExpr> widened = MakeCall("bitwise_or", {x, u});  // int16 | uint8: the wider
  ASSERT_TRUE(widened.ok()) << widened.status();
  EXPECT_EQ(widened->dtype(), DataType::Int(16));
}

TEST(MakeCallTest, PowPromotesIntExponent) {
  Var f("f", DataType::Float(32));
  absl::StatusOr<PrimExpr> r = MakeCall("pow", {f, Operand::IntLiteral(2)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->as<ir::CallNode>()->args[1].as<ir::FloatImmNode>()->value, 2.0);
}

TEST(MakeCallTest, ExplicitDtypes) {
  PrimExpr name = ir::StringImm("sqrtf");
  Var f("f", DataType::Float(32));
  absl::StatusOr<PrimExpr> r = MakeCall("call_extern", {name, f}, DataType::Float(32));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dtype(), DataType::Float(32));
  EXPECT_EQ(Err(MakeCall("call_extern", {name, f})), "T.call_extern requires a dtype");
  EXPECT_EQ(Err(MakeCall("call_extern", {f}, DataType::Float(32))),
            "T.call_extern expects the callee's name (a string) as its first argument");
  EXPECT_EQ(Err(MakeCall("exp", {f}, DataType::Float(64))), "T.exp has dtype float32, not float64");
  absl::StatusOr<PrimExpr> re = MakeCall("reinterpret", {f}, DataType::Int(32));
  ASSERT_TRUE(re.ok());
  EXPECT_EQ(re->dtype(), DataType::Int(32));
}

TEST(MakeCallTest, FixedResultDtypes) {
  PrimExpr name = ir::StringImm("f");
  EXPECT_EQ(MakeCall("call_packed", {name})->dtype(), DataType::Int(32));
  EXPECT_EQ(MakeCall("call_packed", {name})->as<ir::CallNode>()->op.as<ir::OpNode>()->name,
            "tirx.tvm_call_packed");
  EXPECT_EQ(MakeCall("tvm_warp_activemask", {})->dtype(), DataType::UInt(32));
  Var v("v", DataType::Float(32, 4));
  EXPECT_EQ(MakeCall("isnan", {v})->dtype(), DataType::Bool(4));
  EXPECT_EQ(MakeCall("ptx_commit_group", {})->dtype(), DataType::Void());
  EXPECT_EQ(MakeCall("clz", {Var("x", DataType::Int(64))})->dtype(), DataType::Int(32));
}

TEST(MakeIntrinCallTest, ChecksRegistry) {
  Var f("f", DataType::Float(32));
  absl::StatusOr<PrimExpr> r = MakeIntrinCall(DataType::Float(32), "tirx.exp", {f});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Err(MakeIntrinCall(DataType::Float(32), "tirx.bogus", {f})), "unknown TIR intrinsic tirx.bogus");
  EXPECT_EQ(Err(MakeIntrinCall(DataType::Float(32), "tirx.exp", {})), "T.exp expects 1 argument, got 0");
}

}  // namespace
}  // namespace kiln::tir
