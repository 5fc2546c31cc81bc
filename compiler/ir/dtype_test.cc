#include "compiler/ir/dtype.h"

#include "gtest/gtest.h"

namespace kiln::ir {
namespace {

TEST(DataTypeTest, ParsePrintRoundTrip) {
  for (const char* s : {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                        "float32", "float64", "bfloat16", "bool", "handle", "void", "float16x4", "int8x16",
                        "boolx8", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int4", "uint4", "int1", "float8"}) {
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
}

TEST(DataTypeTest, RejectsNonsense) {
  for (const char* s : {"", "float31", "int7", "floaty", "int32x", "int32x0", "x4", "bfloat32", "uint"}) {
    absl::StatusOr<DataType> t = DataType::Parse(s);
    EXPECT_FALSE(t.ok()) << s;
    if (!t.ok()) {
      EXPECT_NE(t.status().message().find("unknown dtype"), std::string::npos);
    }
  }
}

TEST(DataTypeTest, TryParseAgreesWithParse) {
  for (const char* s : {"int32", "float16x4", "bool", "handle", "void", "float8_e4m3fn", "boolx8", "", "float31",
                        "int32x0", "uint", "sblock", "grid", "max", "exp", "axis.remap"}) {
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
