#include "runtime/device/vulkan/vulkan_abi.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::runtime::vulkan {
namespace {

constexpr DLDataType kHandle = {kDLOpaqueHandle, 64, 1};

TEST(VulkanAbiTest, BuffersTakeBindingsAndScalarsAlignedPushSlotsInParamOrder) {
  // buffer, int8, float64, buffer, bool, float16, uint16
  absl::StatusOr<ArgLayout> l = ArgLayoutOf({kHandle, {kDLInt, 8, 1}, {kDLFloat, 64, 1}, kHandle, {kDLUInt, 1, 1},
                                             {kDLFloat, 16, 1}, {kDLUInt, 16, 1}});
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->num_buffers, 2u);
  EXPECT_EQ(l->slots, (std::vector<uint32_t>{0, 0, 8, 1, 16, 20, 24}));
  EXPECT_EQ(l->push_constant_bytes, 28u);
  EXPECT_EQ(l->push_types[1].code, kDLInt);
  EXPECT_EQ(l->push_types[1].bits, 32);
  EXPECT_EQ(l->push_types[5].code, kDLFloat);
  EXPECT_EQ(l->push_types[5].bits, 32);
  EXPECT_EQ(l->push_types[6].code, kDLUInt);
  EXPECT_EQ(l->push_types[6].bits, 32);
}

TEST(VulkanAbiTest, VectorScalarsHaveNoPushForm) {
  EXPECT_TRUE(absl::IsInvalidArgument(ArgLayoutOf({{kDLFloat, 32, 4}}).status()));
}

TEST(VulkanAbiTest, PacksScalarsConvertedToTheirPushTypes) {
  std::vector<DLDataType> params = {{kDLInt, 8, 1}, kHandle, {kDLFloat, 64, 1}, {kDLFloat, 16, 1}};
  absl::StatusOr<ArgLayout> l = ArgLayoutOf(params);
  ASSERT_TRUE(l.ok());
  KilnAny args[4] = {};
  args[0].type_index = kKilnInt, args[0].v_int64 = -3;
  args[2].type_index = kKilnInt, args[2].v_int64 = 7;  // an int passed for a float param
  args[3].type_index = kKilnFloat, args[3].v_float64 = 0.25;
  std::vector<uint8_t> p = PackPushConstants(params, *l, args);
  ASSERT_EQ(p.size(), 20u);
  int32_t i;
  double d;
  float f;
  std::memcpy(&i, p.data(), 4);
  std::memcpy(&d, p.data() + 8, 8);
  std::memcpy(&f, p.data() + 16, 4);
  EXPECT_EQ(i, -3);
  EXPECT_EQ(d, 7.0);
  EXPECT_EQ(f, 0.25f);
}

TEST(VulkanAbiTest, ModulesRoundTripAndBadContainersAreRejected) {
  std::vector<std::vector<uint32_t>> mods = {{0x07230203, 0x10300, 0, 9, 0}, {0x07230203, 0x10300, 0, 4, 0, 17, 1}};
  std::string code = PackModules(mods);
  absl::StatusOr<std::vector<std::vector<uint32_t>>> back = UnpackModules(code);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, mods);
  EXPECT_TRUE(absl::IsInvalidArgument(UnpackModules(code.substr(0, code.size() - 1)).status()));
  std::string huge = code;
  huge[7] = 0x7f;  // a word count far beyond the bytes
  EXPECT_TRUE(absl::IsInvalidArgument(UnpackModules(huge).status()));
  std::string not_spirv = code;
  not_spirv[8] = 0;
  EXPECT_TRUE(absl::IsInvalidArgument(UnpackModules(not_spirv).status()));
}

}  // namespace
}  // namespace kiln::runtime::vulkan
