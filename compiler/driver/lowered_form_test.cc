#include "compiler/driver/lowered_form.h"

#include "gtest/gtest.h"

namespace kiln::driver {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

PrimFunc WithAttrs(Map<String, ObjectRef> attrs) { return PrimFunc({}, Evaluate(I32(0)), Type(), {}, attrs); }

TEST(LoweredFormTest, PackedEntryIsCallingConvOne) {
  Map<String, ObjectRef> attrs;
  EXPECT_FALSE(IsPackedEntry(WithAttrs(attrs).as<PrimFuncNode>()));
  attrs.Set(String("calling_conv"), IntImm(DataType::Int(32), 1));
  EXPECT_TRUE(IsPackedEntry(WithAttrs(attrs).as<PrimFuncNode>()));
  attrs.Set(String("calling_conv"), IntImm(DataType::Int(32), 0));
  EXPECT_FALSE(IsPackedEntry(WithAttrs(attrs).as<PrimFuncNode>()));
  attrs.Set(String("calling_conv"), String("1"));
  EXPECT_FALSE(IsPackedEntry(WithAttrs(attrs).as<PrimFuncNode>()));
}

TEST(LoweredFormTest, SymbolIsGlobalSymbolElseModuleName) {
  Map<String, ObjectRef> attrs;
  EXPECT_EQ(LoweredSymbol("helper", WithAttrs(attrs).as<PrimFuncNode>()), "helper");
  attrs.Set(String("global_symbol"), String("add"));
  EXPECT_EQ(LoweredSymbol("main", WithAttrs(attrs).as<PrimFuncNode>()), "add");
}

TEST(LoweredFormTest, ReturnAndNoOpEvaluates) {
  Evaluate ret(Call(DataType::Int(32), Op("tirx.ret"), {I32(7)}));
  Evaluate assume(Call(DataType::Bool(), Op("tirx.assume"), {IntImm(DataType::Bool(), 1)}));
  Evaluate constant(I32(0));
  Evaluate other(Call(DataType::Float(32), Op("tirx.exp"), {FloatImm(DataType::Float(32), 1.0)}));
  PrimExpr v = ReturnedValue(ret.as<EvaluateNode>());
  ASSERT_TRUE(v.defined());
  EXPECT_EQ(v.as<IntImmNode>()->value, 7);
  EXPECT_FALSE(ReturnedValue(assume.as<EvaluateNode>()).defined());
  EXPECT_FALSE(ReturnedValue(other.as<EvaluateNode>()).defined());
  EXPECT_FALSE(IsNoOpEvaluate(ret.as<EvaluateNode>()));
  EXPECT_TRUE(IsNoOpEvaluate(assume.as<EvaluateNode>()));
  EXPECT_TRUE(IsNoOpEvaluate(constant.as<EvaluateNode>()));
  EXPECT_FALSE(IsNoOpEvaluate(other.as<EvaluateNode>()));
}

}  // namespace
}  // namespace kiln::driver
