#include "compiler/ir/distributed.h"

#include "compiler/ir/ir.h"
#include "compiler/ir/structural.h"
#include "gtest/gtest.h"

namespace kiln::ir {
namespace {

PrimExpr I64(int64_t v) { return IntImm(DataType::Int(64), v); }

TEST(DistributedTest, PlacementReadsTvmSpellings) {
  // TVM's Placement.from_text accepts specs with or without separators.
  EXPECT_EQ(*ParsePlacement("S[0]R"), (std::vector<int>{0, kReplica}));
  EXPECT_EQ(*ParsePlacement("S[1], R"), (std::vector<int>{1, kReplica}));
  EXPECT_EQ(*ParsePlacement("R, R"), (std::vector<int>{kReplica, kReplica}));
  EXPECT_EQ(*ParsePlacement(""), std::vector<int>{});
  EXPECT_EQ(PlacementToString(*ParsePlacement("S[0]R")), "S[0], R");
  EXPECT_FALSE(ParsePlacement("X").ok());
  EXPECT_FALSE(ParsePlacement("S[a]").ok());
  EXPECT_FALSE(ParsePlacement("S[1").ok());
}

TEST(DistributedTest, DeviceMeshFromRangeListsItsIds) {
  GlobalInfo from_range = *MakeDeviceMesh({2, 2}, Range(I64(4), I64(4)));
  GlobalInfo from_ids = *MakeDeviceMesh({2, 2}, {4, 5, 6, 7});
  EXPECT_EQ(DeviceMeshShape(from_range), (std::vector<int64_t>{2, 2}));
  const auto* ids = from_range->attrs.Get(String("device_ids")).as<ArrayNode>();
  ASSERT_NE(ids, nullptr);
  EXPECT_EQ(ids->data.size(), 4u);
  EXPECT_EQ(Downcast<IntImm>(ids->data[3])->value, 7);
  // The range is remembered (TVM prints it back), so the two spellings differ.
  EXPECT_FALSE(StructuralEqual(from_range, from_ids));
  EXPECT_FALSE(MakeDeviceMesh({2, 2}, {0, 1, 2}).ok());
}

TEST(DistributedTest, DTensorTypesCompareByMeshAndPlacement) {
  GlobalInfo mesh = *MakeDeviceMesh({2}, Range(I64(0), I64(2)));
  GlobalInfo other = *MakeDeviceMesh({2}, Range(I64(2), I64(2)));
  TensorType t({I64(8), I64(4)}, DataType::Float(32));
  EXPECT_TRUE(StructuralEqual(DTensorType(t, mesh, "S[0]"), DTensorType(t, mesh, "S[0]")));
  EXPECT_FALSE(StructuralEqual(DTensorType(t, mesh, "S[0]"), DTensorType(t, mesh, "S[1]")));
  EXPECT_FALSE(StructuralEqual(DTensorType(t, mesh, "S[0]"), DTensorType(t, other, "S[0]")));
  EXPECT_TRUE(CheckDTensorType(t, mesh, {1}).ok());
  EXPECT_FALSE(CheckDTensorType(t, mesh, {2}).ok());                   // axis beyond the rank
  EXPECT_FALSE(CheckDTensorType(t, mesh, {kReplica, kReplica}).ok());  // one spec per mesh dim
}

}  // namespace
}  // namespace kiln::ir
