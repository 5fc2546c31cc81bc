#include "compiler/script/parser/ptx_table.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace kiln::script::parser {
namespace {

PtxArg Reg(const std::string& dtype, bool lvalue = true) {
  PtxArg a;
  a.dtype = dtype;
  a.lvalue = lvalue;
  return a;
}
PtxArg Lit(PtxArg::Literal kind, const std::string& dtype, int64_t value = 0) {
  PtxArg a;
  a.literal = kind;
  a.dtype = dtype;
  a.const_int = kind == PtxArg::Literal::kInt;
  a.int_value = value;
  return a;
}
PtxArg Pointer() { return Reg("handle", false); }
PtxArg Sink() {
  PtxArg a;
  a.form = PtxArg::Form::kSink;
  return a;
}
PtxArg Tagged(const std::string& dtype) {
  PtxArg a = Reg(dtype, false);
  a.pred_tag = true;
  return a;
}

// The error of a call, "" when it is accepted.
std::string Error(const std::string& family, const std::vector<std::string>& tokens, const std::vector<PtxArg>& args) {
  auto err = CheckPtxCall(family, tokens, args);
  return err ? err->message : "";
}

TEST(PtxTable, FamiliesWithoutATableAreLeftAsWritten) {
  EXPECT_FALSE(PtxFamilyHasTable("mbarrier"));
  EXPECT_TRUE(PtxFamilyHasTable("ld"));
  EXPECT_EQ(Error("mbarrier", {"anything"}, {}), "");
}

TEST(PtxTable, ModifierTokensFillSlotsInAnyOrder) {
  EXPECT_EQ(Error("ld", {"global", "acquire", "gpu", "b32"}, {Reg("uint32"), Pointer()}), "");
  EXPECT_EQ(Error("st", {"release", "gpu", "global", "b32"}, {Pointer(), Reg("float32", false)}), "");
  EXPECT_NE(Error("ld", {"global", "bogus", "b32"}, {Reg("uint32"), Pointer()}).find("not a valid modifier"), std::string::npos);
  // The printed form's omitted slots are empty strings.
  EXPECT_EQ(Error("ld", {"", "", "", "global", "", "", "", "", "", "b32"}, {Reg("uint32"), Pointer()}), "");
}

TEST(PtxTable, RequiredSlotsAndCrossSlotRules) {
  EXPECT_NE(Error("st", {"global"}, {Pointer(), Reg("uint32", false)}).find("missing required modifier"), std::string::npos);
  EXPECT_NE(Error("ld", {"global", "acquire", "b32"}, {Reg("uint32"), Pointer()}).find("requires a scope"), std::string::npos);
  EXPECT_NE(Error("mad", {"lo", "sat", "s32"}, {Reg("int32"), Reg("int32"), Reg("int32"), Reg("int32")}).find("hi.sat.s32"),
            std::string::npos);
  EXPECT_EQ(Error("mad", {"hi", "sat", "s32"}, {Reg("int32"), Reg("int32"), Reg("int32"), Reg("int32")}), "");
  EXPECT_NE(Error("rcp", {"approx", "f64"}, {Reg("float64"), Reg("float64")}).find("rcp.approx.ftz.f64"), std::string::npos);
  EXPECT_EQ(Error("rcp", {"approx", "ftz", "f64"}, {Reg("float64"), Reg("float64")}), "");
  EXPECT_NE(Error("setp", {"lo", "s32"}, {Reg("uint32"), Reg("int32"), Reg("int32")}).find("signed"), std::string::npos);
  EXPECT_EQ(Error("setp", {"lo", "u32"}, {Reg("uint32"), Reg("uint32"), Reg("uint32")}), "");
}

TEST(PtxTable, OperandsPickTheEntryOfASharedMnemonic) {
  PtxArg u64 = Reg("uint64"), f32 = Reg("float32");
  EXPECT_EQ(Error("mov", {"b64"}, {u64, f32, f32}), "");  // pack
  EXPECT_EQ(Error("mov", {"b64"}, {f32, f32, u64}), "");  // unpack
  EXPECT_EQ(Error("mov", {"b64"}, {Sink(), f32, u64}), "");
  EXPECT_NE(Error("mov", {"b64"}, {u64, f32, Sink()}), "");   // a source takes no `_`
  EXPECT_NE(Error("mov", {"b64"}, {Sink(), Sink(), u64}), "");
  EXPECT_NE(Error("mov", {"b64"}, {u64, f32, Reg("uint32")}), "");  // one group, one dtype
  EXPECT_NE(Error("mov", {"b64"}, {u64, Lit(PtxArg::Literal::kFloat, "float32"), Lit(PtxArg::Literal::kFloat, "float32")}), "");
  EXPECT_NE(Error("mov", {"b64"}, {u64, Reg("uint32")}), "");
  EXPECT_EQ(Error("mul", {"wide", "s32"}, {Reg("int64"), Reg("int32"), Reg("int32")}), "");
  EXPECT_NE(Error("mul", {"wide", "s32"}, {Reg("int32"), Reg("int32"), Reg("int32")}).find("int64"), std::string::npos);
}

TEST(PtxTable, DestinationsAndAddresses) {
  EXPECT_NE(Error("ld", {"global", "b32"}, {Reg("uint32", false), Pointer()}).find("writable"), std::string::npos);
  EXPECT_NE(Error("ld", {"global", "b32"}, {Reg("float64"), Pointer()}).find("must have dtype"), std::string::npos);
  EXPECT_NE(Error("ld", {"global", "b32"}, {Reg("uint32"), Reg("uint32", false)}).find("shared state space"), std::string::npos);
  EXPECT_EQ(Error("ld", {"shared", "b32"}, {Reg("uint32"), Reg("uint32", false)}), "");
  EXPECT_NE(Error("ld", {"global", "b32"}, {Reg("uint32"), Reg("float32", false)}).find("pointer or uint64"), std::string::npos);
  EXPECT_NE(Error("ld", {"global", "b32"}, {Reg("uint32"), Pointer(), Lit(PtxArg::Literal::kInt, "int32", 16)}).find("expects 2"),
            std::string::npos);
  PtxArg offset = Pointer();
  offset.form = PtxArg::Form::kAddrOffset;
  EXPECT_EQ(Error("ld", {"global", "b32"}, {Reg("uint32"), offset}), "");
  EXPECT_NE(Error("isspacep", {"global"}, {Reg("uint32"), offset}).find("T.ptx.addr"), std::string::npos);
}

TEST(PtxTable, PredOperands) {
  EXPECT_EQ(Error("setp", {"lt", "and", "s32"}, {Reg("uint32"), Reg("int32"), Reg("int32"), Tagged("uint32")}), "");
  EXPECT_EQ(Error("setp", {"lt", "and", "s32"}, {Reg("uint32"), Reg("int32"), Reg("int32"), Reg("bool", false)}), "");
  EXPECT_NE(Error("setp", {"lt", "and", "s32"}, {Reg("uint32"), Reg("int32"), Reg("int32"), Reg("uint32", false)}), "");
  EXPECT_NE(Error("setp", {"lt", "s32"}, {Reg("int32"), Reg("int32"), Reg("int32")}).find(".pred result"), std::string::npos);
  EXPECT_NE(Error("add", {"s32"}, {Reg("int32"), Tagged("int32"), Reg("int32")}).find("not a .pred operand"), std::string::npos);
}

TEST(PtxTable, TensorMemoryAndTextImmediates) {
  PtxArg u32 = Reg("uint32", false), u64 = Reg("uint64", false);
  std::vector<PtxArg> mma = {u32, u64, u64, u32, Lit(PtxArg::Literal::kInt, "int32"), Lit(PtxArg::Literal::kInt, "int32"),
                             Lit(PtxArg::Literal::kInt, "int32"), Lit(PtxArg::Literal::kInt, "int32"), Tagged("uint32")};
  EXPECT_EQ(Error("tcgen05", {"mma", "cta_group::1", "kind::f16"}, mma), "");
  mma[0] = u64;  // a tmem address is a uint32
  EXPECT_NE(Error("tcgen05", {"mma", "cta_group::1", "kind::f16"}, mma).find("tmem address"), std::string::npos);
  EXPECT_NE(Error("tcgen05", {"mma", "cta_group::1", "kind::mxf4", "block_scale", "block16"}, {u32, u64, u64, u32, u32, u32, Tagged("uint32")})
                .find("block32"),
            std::string::npos);
  EXPECT_EQ(Error("cp", {"async", "ca", "shared", "global"}, {Pointer(), Pointer(), Lit(PtxArg::Literal::kInt, "int32", 8)}), "");
  EXPECT_NE(Error("cp", {"async", "ca", "shared", "global"}, {Pointer(), Pointer(), Lit(PtxArg::Literal::kInt, "int32", 2)}), "");
  EXPECT_NE(Error("cp", {"async", "ca", "shared", "global"}, {Pointer(), Pointer(), Reg("int32", false)}).find("integer constant"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::script::parser
