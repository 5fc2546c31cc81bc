#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

TEST(Reshape, StaticSymbolicAndMinusOne) {
  EXPECT_EQ(Str(Infer("reshape", {V("x", Tensor({2, 12})), Shape({2, 3, 4})})), "R.Tensor((2, 3, 4), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("reshape", {V("x", Tensor({2, 12})), Shape({-1, 6})})), "R.Tensor((4, 6), dtype=\"float32\")");
  ir::Var n = SymVar("n"), m = SymVar("m"), k = SymVar("k");
  EXPECT_EQ(Str(Infer("reshape", {V("x", Tensor({n, 4})), Shape({-1})})), "R.Tensor((n * 4,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("reshape", {V("x", Tensor({n, 4})), Shape({-1, 2})})), "R.Tensor((n * 2, 2), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("reshape", {V("y", Tensor({m, k})), Shape({ir::Mul(m, k)})})),
            "R.Tensor((m * k,), dtype=\"float32\")");
}

TEST(Reshape, Errors) {
  absl::StatusOr<ir::Type> t = Infer("reshape", {V("x", Tensor({2, 12})), Shape({5, 5})});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
  EXPECT_NE(t.status().message().find("cannot reshape"), std::string::npos);
  EXPECT_TRUE(IsInvalidArgument(Infer("reshape", {V("x", Tensor({2, 12})), Shape({-1, -1})}),
                                "R.reshape: at most one dimension of the new shape can be -1"));
  EXPECT_TRUE(IsInvalidArgument(Infer("reshape", {V("x", Tensor({2, 12})), Shape({-1, 5})}),
                                "R.reshape: cannot reshape a tensor of shape (2, 12)"));
}

TEST(Reshape, ShapeVariable) {
  ir::Var s = V("s", ir::ShapeType(3));
  EXPECT_EQ(Str(Infer("reshape", {V("x", Tensor({24})), s})), "R.Tensor(ndim=3, dtype=\"float32\")");
}

TEST(Manipulate, PermuteExpandSqueezeFlatten) {
  ir::Var x = V("x", Tensor({2, 3, 4}));
  EXPECT_EQ(Str(Infer("permute_dims", {x}, {{"axes", Ints({2, 0, 1})}})), "R.Tensor((4, 2, 3), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("permute_dims", {x})), "R.Tensor((4, 3, 2), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("permute_dims", {x}, {{"axes", Ints({0, 0, 1})}}),
                                "R.permute_dims: axis 0 appears more than once"));
  EXPECT_EQ(Str(Infer("expand_dims", {x}, {{"axis", Ints({0, -1})}})), "R.Tensor((1, 2, 3, 4, 1), dtype=\"float32\")");
  ir::Var y = V("y", Tensor({1, 3, 1}));
  EXPECT_EQ(Str(Infer("squeeze", {y})), "R.Tensor((3,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("squeeze", {y}, {{"axis", Ints({2})}})), "R.Tensor((1, 3), dtype=\"float32\")");
  // A listed axis of constant size other than 1 is kept (TVM follows PyTorch).
  EXPECT_EQ(Str(Infer("squeeze", {y}, {{"axis", Ints({0, 1})}})), "R.Tensor((3, 1), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("flatten", {x})), "R.Tensor((24,), dtype=\"float32\")");
}

TEST(Concat, AlongAxis) {
  ir::Expr t = ir::relax::Tuple({V("a", Tensor({2, 3}, "int32")), V("b", Tensor({4, 3}, "int32"))});
  EXPECT_EQ(Str(Infer("concat", {t}, {{"axis", I(0)}})), "R.Tensor((6, 3), dtype=\"int32\")");
  ir::Var n = SymVar("n");
  ir::Expr s = ir::relax::Tuple({V("a", Tensor({n, 3})), V("b", Tensor({2, 3}))});
  EXPECT_EQ(Str(Infer("concat", {s})), "R.Tensor((n + 2, 3), dtype=\"float32\")");
  ir::Expr bad = ir::relax::Tuple({V("a", Tensor({2, 3})), V("b", Tensor({2, 4}))});
  EXPECT_TRUE(IsInvalidArgument(Infer("concat", {bad}, {{"axis", I(0)}}),
                                "R.concat: shape mismatch in dimension 1: (2, 3) vs (2, 4)"));
  ir::Expr mixed = ir::relax::Tuple({V("a", Tensor({2, 3})), V("b", Tensor({2, 3}, "int32"))});
  EXPECT_TRUE(IsInvalidArgument(Infer("concat", {mixed}), "R.concat: dtype mismatch: float32 vs int32"));
}

TEST(Split, SectionsAndIndices) {
  ir::Var x = V("x", Tensor({6, 2, 2}));
  EXPECT_EQ(Str(Infer("split", {x}, {{"indices_or_sections", Ints({2})}, {"axis", I(0)}})),
            "R.Tuple(R.Tensor((2, 2, 2), dtype=\"float32\"), R.Tensor((4, 2, 2), dtype=\"float32\"))");
  EXPECT_EQ(Str(Infer("split", {x}, {{"indices_or_sections", I(3)}})),
            "R.Tuple(R.Tensor((2, 2, 2), dtype=\"float32\"), R.Tensor((2, 2, 2), dtype=\"float32\"), "
            "R.Tensor((2, 2, 2), dtype=\"float32\"))");
  // Uneven sections: ceil(6 / 4) = 2 each, the last takes the remaining 0.
  EXPECT_EQ(Str(Infer("split", {x}, {{"indices_or_sections", I(4)}})),
            "R.Tuple(R.Tensor((2, 2, 2), dtype=\"float32\"), R.Tensor((2, 2, 2), dtype=\"float32\"), "
            "R.Tensor((2, 2, 2), dtype=\"float32\"), R.Tensor((0, 2, 2), dtype=\"float32\"))");
  // Indices are clamped to [0, dim]; a decreasing pair gives an empty piece.
  EXPECT_EQ(Str(Infer("split", {x}, {{"indices_or_sections", Ints({-2, 4, 3, 9})}})),
            "R.Tuple(R.Tensor((0, 2, 2), dtype=\"float32\"), R.Tensor((4, 2, 2), dtype=\"float32\"), "
            "R.Tensor((0, 2, 2), dtype=\"float32\"), R.Tensor((3, 2, 2), dtype=\"float32\"), "
            "R.Tensor((0, 2, 2), dtype=\"float32\"))");
  // One section is the input itself, not a tuple.
  EXPECT_EQ(Str(Infer("split", {x}, {{"indices_or_sections", I(1)}})), "R.Tensor((6, 2, 2), dtype=\"float32\")");
  ir::Var n = SymVar("n");
  EXPECT_EQ(Str(Infer("split", {V("s", Tensor({n}))}, {{"indices_or_sections", I(2)}})),
            "R.Tuple(R.Tensor(((n + 1) // 2,), dtype=\"float32\"), R.Tensor((n - (n + 1) // 2,), dtype=\"float32\"))");
  EXPECT_TRUE(IsInvalidArgument(Infer("split", {x}),  // indices_or_sections is required
                                "R.split: missing required argument 'indices_or_sections'"));
}

TEST(BroadcastTo, Checks) {
  EXPECT_EQ(Str(Infer("broadcast_to", {V("x", Tensor({1, 3})), Shape({4, 3})})), "R.Tensor((4, 3), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("broadcast_to", {V("x", Tensor({2, 3})), Shape({4, 3})}),
                                "R.broadcast_to: cannot broadcast shape (2, 3) to (4, 3)"));
  EXPECT_EQ(Str(Infer("collapse_sum_to", {V("x", Tensor({4, 3})), Shape({1, 3})})), "R.Tensor((1, 3), dtype=\"float32\")");
}

TEST(Stack, NewAxis) {
  ir::Expr t = ir::relax::Tuple({V("a", Tensor({2, 3})), V("b", Tensor({2, 3}))});
  EXPECT_EQ(Str(Infer("stack", {t})), "R.Tensor((2, 2, 3), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("stack", {t}, {{"axis", I(-1)}})), "R.Tensor((2, 3, 2), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("stack", {t}, {{"axis", I(2)}})), "R.Tensor((2, 3, 2), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("stack", {t}, {{"axis", I(3)}}),
                                "R.stack: axis 3 is out of range for a tensor of rank 3"));
  ir::Expr bad = ir::relax::Tuple({V("a", Tensor({2, 3})), V("b", Tensor({3, 2}))});
  EXPECT_TRUE(IsInvalidArgument(Infer("stack", {bad}),
                                "R.stack: all tensors must have the same shape: (2, 3) vs (3, 2)"));
  ir::Var n = SymVar("n"), m = SymVar("m");
  ir::Expr sym = ir::relax::Tuple({V("a", Tensor({n})), V("b", Tensor({m}))});
  EXPECT_EQ(Str(Infer("stack", {sym})), "R.Tensor(ndim=2, dtype=\"float32\")");  // n == m is not provable
}

TEST(Manipulate, RepeatTileCollapseSumLike) {
  ir::Var x = V("x", Tensor({2, 3}));
  EXPECT_EQ(Str(Infer("repeat", {x}, {{"repeats", I(2)}, {"axis", I(0)}})), "R.Tensor((4, 3), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("repeat", {x}, {{"repeats", I(3)}})), "R.Tensor((18,), dtype=\"float32\")");  // flattened
  EXPECT_TRUE(IsInvalidArgument(Infer("repeat", {x}, {{"repeats", I(2)}, {"axis", I(2)}}),
                                "R.repeat: axis 2 is out of range for a tensor of rank 2"));
  EXPECT_EQ(Str(Infer("tile", {x}, {{"repeats", Ints({2, 3})}})), "R.Tensor((4, 9), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("tile", {x}, {{"repeats", Ints({2, 1, 2})}})), "R.Tensor((2, 2, 6), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("tile", {x}, {{"repeats", I(2)}})), "R.Tensor((2, 6), dtype=\"float32\")");
  ir::Var n = SymVar("n");
  EXPECT_EQ(Str(Infer("tile", {V("y", Tensor({n}))}, {{"repeats", Ints({3})}})), "R.Tensor((n * 3,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("collapse_sum_like", {V("g", Tensor({4, 3})), V("t", Tensor({1, 3}, "int32"))})),
            "R.Tensor((1, 3), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("collapse_sum_like", {V("g", Tensor({4, 3})), V("t", Tensor({2, 3}))}),
                                "R.collapse_sum_like: cannot collapse shape (4, 3) to (2, 3)"));
}

TEST(Manipulate, ReverseSequenceMeshgridOneHot) {
  ir::Var x = V("x", Tensor({4, 5, 2}));
  EXPECT_EQ(Str(Infer("reverse_sequence", {x, V("l", Tensor({4}, "int64"))})), "R.Tensor((4, 5, 2), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("reverse_sequence", {x, V("l", Tensor({5}, "int64"))}),  // batch is dim 0 (4)
                                "R.reverse_sequence: seq_lengths has 5 entries"));
  EXPECT_TRUE(IsInvalidArgument(Infer("reverse_sequence", {x, V("l", Tensor({4}, "int64"))}, {{"seq_axis", I(0)}}),
                                "R.reverse_sequence: seq_axis and batch_axis must differ"));
  ir::Expr grids = ir::relax::Tuple({V("a", Tensor({3})), V("b", Tensor({5}))});
  EXPECT_EQ(Str(Infer("meshgrid", {grids})),
            "R.Tuple(R.Tensor((3, 5), dtype=\"float32\"), R.Tensor((3, 5), dtype=\"float32\"))");
  EXPECT_EQ(Str(Infer("meshgrid", {grids}, {{"indexing", ir::String("xy")}})),
            "R.Tuple(R.Tensor((5, 3), dtype=\"float32\"), R.Tensor((5, 3), dtype=\"float32\"))");
  EXPECT_TRUE(IsInvalidArgument(Infer("meshgrid", {grids}, {{"indexing", ir::String("ji")}}),
                                "R.meshgrid: indexing must be \"ij\" or \"xy\""));
  ir::Var idx = V("i", Tensor({2, 3}, "int64"));
  ir::Expr on = ir::relax::PrimValue(ir::FloatImm(ir::DataType::Float(32), 1.0));
  ir::Expr off = ir::relax::PrimValue(ir::FloatImm(ir::DataType::Float(32), 0.0));
  EXPECT_EQ(Str(Infer("one_hot", {idx, on, off}, {{"depth", I(4)}})), "R.Tensor((2, 3, 4), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("one_hot", {idx, on, off}, {{"depth", I(4)}, {"axis", I(0)}})),
            "R.Tensor((4, 2, 3), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("one_hot", {idx, on, ir::relax::PrimValue(I(0))}, {{"depth", I(4)}}),  // dtypes differ
                                "R.one_hot: on_value and off_value must have the same dtype"));
  EXPECT_TRUE(IsInvalidArgument(Infer("one_hot", {V("f", Tensor({2})), on, off}, {{"depth", I(4)}}),  // float indices
                                "R.one_hot: indices must have an integer dtype, got float32"));
}

TEST(Manipulate, GatherScatter) {
  ir::Var x = V("x", Tensor({4, 5, 6}));
  ir::Var i3 = V("i", Tensor({2, 5, 6}, "int64"));
  EXPECT_EQ(Str(Infer("gather_elements", {x, i3})), "R.Tensor((2, 5, 6), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("gather_elements", {x, V("j", Tensor({2, 5}, "int64"))}),  // ranks differ
                                "R.gather_elements: data and indices must have the same rank"));
  // gather_nd: indices (3, 2) address the first two dims -> (3, 6).
  EXPECT_EQ(Str(Infer("gather_nd", {x, V("j", Tensor({3, 2}, "int64"))})), "R.Tensor((3, 6), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("gather_nd", {x, V("j", Tensor({4, 1}, "int64"))}, {{"batch_dims", I(1)}})),
            "R.Tensor((4, 6), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("gather_nd", {x, V("j", Tensor({3, 4}, "int64"))}),
                                "R.gather_nd: indices address 4 dimensions"));
  ir::Var u = V("u", Tensor({2, 5, 6}));
  EXPECT_EQ(Str(Infer("scatter_elements", {x, i3, u}, {{"axis", I(0)}, {"reduction", ir::String("add")}})),
            "R.Tensor((4, 5, 6), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("scatter_elements", {x, i3, u}, {{"reduction", ir::String("xor")}}),
                                "R.scatter_elements: unsupported reduction \"xor\""));
  EXPECT_TRUE(IsInvalidArgument(Infer("scatter_elements", {x, i3, V("v", Tensor({2, 5, 6}, "int32"))}),
                                "R.scatter_elements: data and updates must have the same dtype"));
  EXPECT_EQ(Str(Infer("scatter_nd", {x, V("j", Tensor({3, 2}, "int64")), V("v", Tensor({3, 6}))})),
            "R.Tensor((4, 5, 6), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("scatter_nd", {x, V("j", Tensor({3, 2}, "int64")), V("v", Tensor({3, 5}))}),
                                "R.scatter_nd: updates has shape (3, 5), expected (3, 6)"));
  ir::Expr start = ir::relax::PrimValue(I(1)), end = ir::relax::PrimValue(I(5)), step = ir::relax::PrimValue(I(2));
  EXPECT_EQ(Str(Infer("slice_scatter", {x, V("s", Tensor({4, 2, 6})), start, end, step}, {{"axis", I(1)}})),
            "R.Tensor((4, 5, 6), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("slice_scatter", {x, V("s", Tensor({4, 3, 6})), start, end, step}, {{"axis", I(1)}}),
                                "R.slice_scatter: src has 3 elements along the axis but the slice has 2"));
}

TEST(Manipulate, IndexTensorAndIndexPut) {
  ir::Var x = V("x", Tensor({4, 5, 6}));
  ir::Expr two = ir::relax::Tuple({V("a", Tensor({3, 1}, "int64")), V("b", Tensor({2}, "int64"))});
  EXPECT_EQ(Str(Infer("index_tensor", {x, two})), "R.Tensor((3, 2, 6), dtype=\"float32\")");
  ir::Expr four = ir::relax::Tuple({V("a", Tensor({1}, "int64")), V("b", Tensor({1}, "int64")),
                                    V("c", Tensor({1}, "int64")), V("d", Tensor({1}, "int64"))});
  EXPECT_TRUE(IsInvalidArgument(Infer("index_tensor", {x, four}),
                                "R.index_tensor: 4 index tensors for a tensor of rank 3"));
  EXPECT_TRUE(IsInvalidArgument(Infer("index_tensor", {x, ir::relax::Tuple({V("f", Tensor({2}))})}),
                                "R.index_tensor: index tensors must have an integer dtype"));
  EXPECT_EQ(Str(Infer("index_put", {x, two, V("v", Tensor({3, 2, 6}))}, {{"accumulate", ir::IntImm(ir::DataType::Bool(), 1)}})),
            "R.Tensor((4, 5, 6), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("index_put", {x, two, V("v", Tensor({3, 2, 6}, "int32"))}),
                                "R.index_put: data and values must have the same dtype"));
}

TEST(Manipulate, LayoutTransform) {
  // lambda i0, i1: (i0, i1 // 4, i1 % 4)
  auto index_map = []() {
    auto n = ir::make_object<ir::IndexMapNode>();
    std::vector<ir::Var> vars;
    for (int k = 0; k < 2; ++k) vars.push_back(ir::Var("i" + std::to_string(k), ir::DataType::Int(64)));
    n->initial_indices = {vars[0], vars[1]};
    n->final_indices = {vars[0], ir::FloorDiv(vars[1], I(4)), ir::FloorMod(vars[1], I(4))};
    return ir::IndexMap(ir::ObjectPtr<ir::Object>(std::move(n)));
  };
  ir::IndexMap m = index_map();
  EXPECT_EQ(Str(Infer("layout_transform", {V("x", Tensor({2, 32}))}, {{"index_map", m}})),
            "R.Tensor((2, 8, 4), dtype=\"float32\")");
  // 30 columns pad up to 8 x 4.
  EXPECT_EQ(Str(Infer("layout_transform", {V("x", Tensor({2, 30}))}, {{"index_map", m}})),
            "R.Tensor((2, 8, 4), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("layout_transform", {V("x", Tensor({2, SymVar("n")}))}, {{"index_map", m}})),
            "R.Tensor(ndim=3, dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("layout_transform", {V("x", Tensor({2, 3, 4}))}, {{"index_map", m}}),
                                "R.layout_transform: the index map takes 2 indices but the tensor has rank 3"));
}

}  // namespace
}  // namespace kiln::relax::testing
