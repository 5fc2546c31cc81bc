#include "compiler/target/spirv/spirv_builder.h"

#include <gtest/gtest.h>

#include "compiler/target/spirv/spirv_tools.h"

namespace kiln::codegen::spirv {
namespace {

TEST(SpirvBuilderTest, InternsTypesAndConstantsAndDeclaresCapabilities) {
  Builder b;
  uint32_t i32 = b.TypeInt(32, true);
  EXPECT_EQ(b.TypeInt(32, true), i32);
  EXPECT_NE(b.TypeInt(32, false), i32);
  EXPECT_EQ(b.Constant(i32, 7), b.Constant(i32, 7));
  uint32_t i8 = b.TypeInt(8, true);
  // A negative int8 constant is sign-extended into its word, and -1 and 255 are the same int8.
  EXPECT_EQ(b.Constant(i8, static_cast<uint64_t>(-1)), b.Constant(i8, 255));
  b.TypeFloat(64);
  std::vector<uint32_t> words = b.Finish(kSpirvVersion);
  ASSERT_GE(words.size(), 5u);
  EXPECT_EQ(words[0], spv::MagicNumber);
  EXPECT_EQ(words[3], b.NewId());  // the bound is one past the largest id (NewId hands it out next)
  bool int8 = false, float64 = false;
  for (size_t i = 5; i < words.size(); i += words[i] >> 16) {
    if ((words[i] & 0xffff) == spv::OpCapability) {
      int8 |= words[i + 1] == spv::CapabilityInt8;
      float64 |= words[i + 1] == spv::CapabilityFloat64;
    }
  }
  EXPECT_TRUE(int8);
  EXPECT_TRUE(float64);
}

TEST(SpirvBuilderTest, SectionsLandInLogicalLayoutOrderWhateverTheEmissionOrder) {
  Builder b;
  b.Capability(spv::CapabilityShader);
  uint32_t void_type = b.TypeVoid();
  uint32_t label = 0;
  uint32_t fn = b.BeginFunction(void_type, b.TypeFunction(void_type, {}), &label);
  uint32_t u32 = b.TypeInt(32, false);  // a type declared while the function is being written
  uint32_t var = b.LocalVariable(b.TypePointer(spv::StorageClassFunction, u32));
  b.Emit(spv::OpStore, {var, b.Constant(u32, 3)});
  b.Emit(spv::OpReturn, {});
  b.EndFunction();
  b.Name(fn, "main");
  b.EntryPoint(spv::ExecutionModelGLCompute, fn, "main", {});
  uint32_t wg = b.SpecConstantComposite(b.TypeVector(u32, 3), {b.SpecConstant(u32, 1, 0), b.SpecConstant(u32, 1, 1),
                                                               b.SpecConstant(u32, 1, 2)});
  b.Decorate(wg, spv::DecorationBuiltIn, {spv::BuiltInWorkgroupSize});
  EXPECT_TRUE(Validate(b.Finish(kSpirvVersion), "builder test").ok());
}

TEST(SpirvBuilderTest, StringsAreNulTerminatedAndPadded) {
  EXPECT_EQ(Builder::StringWords("abc"), (std::vector<uint32_t>{0x00636261}));
  EXPECT_EQ(Builder::StringWords("abcd"), (std::vector<uint32_t>{0x64636261, 0}));
}

}  // namespace
}  // namespace kiln::codegen::spirv
