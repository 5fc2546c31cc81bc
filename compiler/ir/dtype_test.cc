#include "compiler/ir/dtype.h"

#include "gtest/gtest.h"

namespace kiln::ir {
namespace {

TEST(DataTypeTest, ParsePrintRoundTrip) {
  for (const char* s : {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                        "float32", "float64", "bfloat16", "bool", "handle", "void", "float16x4", "int8x16",
                        "boolx8", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float8_e3m4", "float8_e4m3",
                        "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
                        "float6_e2m3fn", "float6_e3m2fn", "float6_e2m3fnx4", "int4", "uint4", "int1", "float8"}) {
    absl::StatusOr<DataType> t = DataType::Parse(s);
    ASSERT_TRUE(t.ok()) << s << ": " << t.status();
    EXPECT_EQ(t->ToString(), s);
  }
}

TEST(DataTypeTest, Properties) {
  DataType f = *DataType::Parse("float32x4");
  EXPECT_EQ(f.lanes(), 4);
  EXPECT_EQ(f.bits(), 32);
  EXPECT_TRUE(f.is_float());
  EXPECT_EQ(f.StorageBytes(), 16);
  EXPECT_TRUE(DataType::Bool().is_bool());
  EXPECT_FALSE(DataType::Bool().is_uint());
  EXPECT_TRUE(DataType::Void().is_void());
  EXPECT_FALSE(DataType::Void().is_handle());
  EXPECT_EQ(DataType::FromPacked(f.Packed()), f);
  // The DLPack 1.x low-precision floats: 8-bit formats share is_float8, the 6-bit ones is_float6.
  DataType e3m4 = *DataType::Parse("float8_e3m4"), e2m3 = *DataType::Parse("float6_e2m3fn");
  EXPECT_EQ(e3m4.code(), 7);
  EXPECT_TRUE(e3m4.is_float8() && e3m4.is_floating());
  EXPECT_EQ(e2m3.code(), 15);
  EXPECT_EQ(e2m3.bits(), 6);
  EXPECT_TRUE(e2m3.is_float6() && !e2m3.is_float8() && e2m3.is_floating());
}

// Scalable vectors keep TVM's encoding: the lane field holds -factor, read as an int16.
TEST(DataTypeTest, ScalableVectors) {
  DataType f = *DataType::Parse("float32xvscalex4");
  EXPECT_EQ(f, DataType::ScalableVector(DataType::kFloat, 32, 4));
  EXPECT_TRUE(f.is_scalable_vector());
  EXPECT_TRUE(f.is_vector());
  EXPECT_FALSE(f.is_fixed_length_vector());
  EXPECT_FALSE(f.is_scalar());
  EXPECT_EQ(f.vscale_factor(), 4);
  EXPECT_EQ(f.lanes(), -4);
  EXPECT_EQ(f.Packed() >> 16, 0xfffcu);
  EXPECT_EQ(f.element_of(), DataType::Float(32));
  EXPECT_EQ(DataType::Float(32).with_lanes(-4), f);
  EXPECT_EQ(DataType::Float(32).with_scalable_vscale_factor(4), f);
  EXPECT_EQ(f.ToString(), "float32xvscalex4");
  EXPECT_EQ(DataType::FromPacked(f.Packed()), f);
  EXPECT_EQ(DataType::Float(32, 4).vscale_factor(), 0);
  EXPECT_TRUE(DataType::Float(32, 4).is_fixed_length_vector());
  for (const char* s : {"int8xvscalex16", "float16xvscalex8", "bfloat16xvscalex2", "int64xvscalex32767"}) {
    EXPECT_EQ(DataType::Parse(s)->ToString(), s);
  }
  // kiln's bool is uint1; a scalable one prints as TVM spells an SVE predicate.
  EXPECT_EQ(*DataType::Parse("uint1xvscalex4"), *DataType::Parse("boolxvscalex4"));
  EXPECT_EQ(DataType::Parse("boolxvscalex4")->ToString(), "uint1xvscalex4");
  // A factor below 2 is not scalable (TVM rejects it); fixed lanes stop at int16's maximum.
  for (const char* s : {"float32xvscalex1", "float32xvscalex0", "float32xvscale", "float32xvscalex32768",
                        "float32x32768", "float32x65532", "xvscalex4", "float32xvscalexx4"}) {
    EXPECT_FALSE(DataType::Parse(s).ok()) << s;
  }
}

TEST(DataTypeTest, RejectsNonsense) {
  for (const char* s : {"", "float31", "int7", "floaty", "int32x", "int32x0", "x4", "bfloat32", "bfloat"}) {
    absl::StatusOr<DataType> t = DataType::Parse(s);
    EXPECT_FALSE(t.ok()) << s;
    if (!t.ok()) {
      EXPECT_NE(t.status().message().find("unknown dtype"), std::string::npos);
    }
  }
}

// TVM reads a missing width as 32 bits: dtype="float" is float32 (TVM's own tests use it).
TEST(DataTypeTest, BareNameIs32Bits) {
  EXPECT_EQ(*DataType::Parse("float"), DataType::Float(32));
  EXPECT_EQ(*DataType::Parse("int"), DataType::Int(32));
  EXPECT_EQ(*DataType::Parse("uint"), DataType::UInt(32));
  EXPECT_EQ(*DataType::Parse("floatx4"), DataType::Float(32, 4));
}

TEST(DataTypeTest, TryParseAgreesWithParse) {
  for (const char* s : {"int32", "float16x4", "bool", "handle", "void", "float8_e4m3fn", "boolx8", "", "float31",
                        "int32x0", "uint", "float", "bfloat", "sblock", "grid", "max", "exp", "axis.remap"}) {
    absl::StatusOr<DataType> want = DataType::Parse(s);
    DataType got = DataType::Int(8);
    EXPECT_EQ(DataType::TryParse(s, &got), want.ok()) << s;
    if (want.ok()) {
      EXPECT_EQ(got, *want) << s;
    }
  }
}

}  // namespace
}  // namespace kiln::ir
