#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

ir::GlobalInfo Mesh2x2() { return *ir::MakeDeviceMesh({2, 2}, {0, 1, 2, 3}); }

ir::Type DT(std::vector<D> shape, const std::string& placement, ir::GlobalInfo mesh = Mesh2x2()) {
  return ir::DTensorType(ir::Downcast<ir::TensorType>(Tensor(std::move(shape))), mesh, placement);
}

TEST(Distributed, UnaryAndBinaryKeepShardedAxes) {
  ir::Var x = V("x", DT({8, 4}, "S[0], R"));
  EXPECT_EQ(Str(Infer("nn.gelu", {x})), "R.DTensor(R.Tensor((8, 4), dtype=\"float32\"), \"S[0], R\")");
  // Broadcasting (4,) against (8, 4): the sharded axis 0 of the rank-2 input stays axis 0.
  ir::Var b = V("b", DT({4}, "R, S[0]"));
  EXPECT_EQ(Str(Infer("add", {x, b})), "R.DTensor(R.Tensor((8, 4), dtype=\"float32\"), \"S[0], S[1]\")");
  // Tensors and DTensors do not mix, as in TVM.
  EXPECT_TRUE(IsInvalidArgument(Infer("add", {x, V("t", Tensor({8, 4}))}),
                                "R.add: a distributed operator takes DTensors, not tensors"));
}

TEST(Distributed, MatmulShardsRowsAndColumnsNotTheReduction) {
  ir::Var a = V("a", DT({8, 16}, "S[0], S[1]"));
  ir::Var w = V("w", DT({16, 4}, "R, S[1]"));
  // a's rows (mesh dim 0) reach the result; the sharded reduction axis gives a partial sum, which
  // the type leaves replicated, and w's columns are sharded on mesh dim 1.
  EXPECT_EQ(Str(Infer("matmul", {a, w})), "R.DTensor(R.Tensor((8, 4), dtype=\"float32\"), \"S[0], S[1]\")");
  ir::Var a2 = V("a2", DT({8, 16}, "R, S[1]"));
  ir::Var w2 = V("w2", DT({16, 4}, "R, S[0]"));
  EXPECT_EQ(Str(Infer("matmul", {a2, w2})), "R.DTensor(R.Tensor((8, 4), dtype=\"float32\"), \"R, R\")");
}

TEST(Distributed, PermuteReshapeAndReductionsFollowTheAxes) {
  ir::Var x = V("x", DT({8, 6}, "S[1], R"));
  EXPECT_EQ(Str(Infer("permute_dims", {x})), "R.DTensor(R.Tensor((6, 8), dtype=\"float32\"), \"S[0], R\")");
  EXPECT_EQ(Str(Infer("reshape", {x, Shape({8, 2, 3})})),
            "R.DTensor(R.Tensor((8, 2, 3), dtype=\"float32\"), \"S[1], R\")");
  EXPECT_EQ(Str(Infer("sum", {x}, {{"axis", Ints({1})}})), "R.DTensor(R.Tensor((8,), dtype=\"float32\"), \"R, R\")");
  ir::Var y = V("y", DT({8, 6}, "S[0], R"));
  EXPECT_EQ(Str(Infer("sum", {y}, {{"axis", Ints({1})}})), "R.DTensor(R.Tensor((8,), dtype=\"float32\"), \"S[0], R\")");
  EXPECT_EQ(Str(Infer("nn.softmax", {y})), "R.DTensor(R.Tensor((8, 6), dtype=\"float32\"), \"S[0], R\")");
  // Operators TVM gives no distributed rule reject DTensors.
  EXPECT_TRUE(IsInvalidArgument(Infer("cumsum", {y}), "R.cumsum: has no type inference for DTensor arguments"));
}

TEST(Distributed, DistAndCclOperators) {
  ir::GlobalInfo mesh = Mesh2x2();
  ir::Var x = V("x", DT({8, 6}, "S[0], R", mesh));
  EXPECT_EQ(Str(Infer("dist.redistribute", {x}, {{"device_mesh", mesh}, {"placement", ir::String("R, S[1]")}})),
            "R.DTensor(R.Tensor((8, 6), dtype=\"float32\"), \"R, S[1]\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("dist.redistribute", {x}, {{"device_mesh", mesh}, {"placement", ir::String("S[2], R")}}),
                                "R.dist.redistribute: sharding axis 2 is not below the tensor's rank 2"));
  EXPECT_EQ(Str(Infer("ccl.allreduce", {x})), "R.DTensor(R.Tensor((8, 6), dtype=\"float32\"), \"R, R\")");
  ir::Var t = V("t", Tensor({8, 6}));
  EXPECT_EQ(Str(Infer("dist.annotate_sharding", {t}, {{"device_mesh", mesh}, {"placement", ir::String("S[0], R")}})),
            "R.Tensor((8, 6), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("ccl.allgather", {t}, {{"num_workers", I(2)}})), "R.Tensor((16, 6), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("ccl.scatter_from_worker0", {t}, {{"num_workers", I(2)}, {"axis", I(1)}})),
            "R.Tensor((8, 3), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("ccl.scatter_from_worker0", {t}, {{"num_workers", I(4)}, {"axis", I(1)}}),
                                "R.ccl.scatter_from_worker0: axis 1 of size 6 is not divisible by num_workers 4"));
  EXPECT_TRUE(IsInvalidArgument(Infer("ccl.allreduce", {t}, {{"op_type", ir::String("xor")}}),
                                "R.ccl.allreduce: op_type must be one of sum, prod, min, max, avg"));
  ir::GlobalInfo mesh1 = *ir::MakeDeviceMesh({2}, std::vector<int64_t>{0, 1});
  ir::Var r = V("r", DT({8, 6}, "R", mesh1));
  EXPECT_EQ(Str(Infer("dist.redistribute_replica_to_shard", {r}, {{"num_workers", I(2)}, {"axis", I(1)}})),
            "R.DTensor(R.Tensor((8, 6), dtype=\"float32\"), \"S[1]\")");
  EXPECT_EQ(Str(Infer("dist.redistribute_replica_to_shard", {t}, {{"num_workers", I(2)}, {"axis", I(1)}})),
            "R.Tensor((8, 3), dtype=\"float32\")");
}

TEST(Distributed, CompatibilityComparesPlacementAndMesh) {
  std::string why;
  EXPECT_TRUE(TypesCompatible(DT({8}, "S[0], R"), DT({8}, "S[0], R"), &why));
  EXPECT_FALSE(TypesCompatible(DT({8}, "S[0], R"), DT({8}, "R, S[0]"), &why));
  EXPECT_FALSE(TypesCompatible(DT({8}, "R, R"), DT({8}, "R, R", *ir::MakeDeviceMesh({2, 2}, {4, 5, 6, 7})), &why));
  EXPECT_FALSE(TypesCompatible(DT({8}, "R, R"), Tensor({8}), &why));
}

}  // namespace
}  // namespace kiln::relax::testing
