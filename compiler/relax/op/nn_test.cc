#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

TEST(Conv2d, PaddingStrideDilation) {
  ir::Var x = V("x", Tensor({1, 3, 10, 10}));
  ir::Var w = V("w", Tensor({4, 3, 3, 3}));
  EXPECT_EQ(Str(Infer("nn.conv2d", {x, w}, {{"padding", Ints({1, 1, 1, 1})}})),
            "R.Tensor((1, 4, 10, 10), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("nn.conv2d", {x, w})), "R.Tensor((1, 4, 8, 8), dtype=\"float32\")");
  // (10 + 2 - 5) // 2 + 1 = 4 with dilation 2 (effective kernel 5), padding [1, 1] expanded.
  EXPECT_EQ(Str(Infer("nn.conv2d", {x, w}, {{"strides", Ints({2})}, {"padding", Ints({1, 1})}, {"dilation", Ints({2, 2})}})),
            "R.Tensor((1, 4, 4, 4), dtype=\"float32\")");
  ir::Var n = SymVar("n"), h = SymVar("h");
  EXPECT_EQ(Str(Infer("nn.conv2d", {V("x", Tensor({n, 3, h, 10})), w})), "R.Tensor((n, 4, h - 2, 8), dtype=\"float32\")");
}

TEST(Conv2d, AttrsNormalizedLikeTvm) {
  absl::StatusOr<ir::relax::Call> c =
      MakeOpCall("nn.conv2d", {V("x", Tensor({1, 3, 10, 10})), V("w", Tensor({4, 3, 3, 3}))},
                 {{"padding", Ints({1, 1})}}, {}, ir::IRModule());
  ASSERT_TRUE(c.ok()) << c.status();
  const auto& attrs = (*c)->attrs;
  ASSERT_EQ(attrs.size(), 8u);
  EXPECT_EQ(attrs.key_at(0).str(), "strides");
  EXPECT_EQ(attrs.key_at(7).str(), "out_dtype");
  EXPECT_EQ(ir::Downcast<ir::Array<ir::IntImm>>(attrs.Get("padding")).size(), 4u);
  EXPECT_EQ(ir::Downcast<ir::String>(attrs.Get("out_layout")).str(), "NCHW");
  EXPECT_TRUE(attrs.Get("out_dtype").as<ir::relax::DataTypeImmNode>()->value.is_void());
}

TEST(Conv2d, LayoutsGroupsAndErrors) {
  ir::Var x = V("x", Tensor({1, 10, 10, 8}));  // NHWC
  ir::Var w = V("w", Tensor({3, 3, 4, 16}));   // HWIO, groups 2: I = 8 / 2
  EXPECT_EQ(Str(Infer("nn.conv2d", {x, w}, {{"groups", I(2)}, {"data_layout", ir::String("NHWC")},
                                             {"kernel_layout", ir::String("HWIO")}})),
            "R.Tensor((1, 8, 8, 16), dtype=\"float32\")");
  absl::StatusOr<ir::Type> bad = Infer("nn.conv2d", {V("x", Tensor({1, 3, 8, 8})), V("w", Tensor({4, 2, 3, 3}))});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  EXPECT_NE(bad.status().message().find("channels"), std::string::npos);
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.conv2d", {V("x", Tensor({1, 3, 2, 2})), V("w", Tensor({4, 3, 3, 3}))}),
                                "R.nn.conv2d: the kernel (3 with dilation) is larger than the padded input"));
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.conv2d", {V("x", Tensor({1, 3, 8})), V("w", Tensor({4, 3, 3, 3}))}),
                                "R.nn.conv2d: expects data of rank 4, got 3"));
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.conv2d", {V("x", Tensor({1, 3, 8, 8})), V("w", Tensor({4, 3, 3, 3}))}, {{"bogus", I(1)}}),
                                "R.nn.conv2d: got an unexpected keyword argument 'bogus'"));
}

TEST(Conv, OneDAndTranspose) {
  EXPECT_EQ(Str(Infer("nn.conv1d", {V("x", Tensor({2, 4, 16})), V("w", Tensor({8, 4, 5}))}, {{"strides", Ints({3})}})),
            "R.Tensor((2, 8, 4), dtype=\"float32\")");
  // (8 - 1) * 2 - 2 + 3 + 1 = 16
  EXPECT_EQ(Str(Infer("nn.conv2d_transpose", {V("x", Tensor({1, 4, 8, 8})), V("w", Tensor({4, 6, 3, 3}))},
                      {{"strides", Ints({2, 2})}, {"padding", Ints({1, 1})}, {"output_padding", Ints({1, 1})}})),
            "R.Tensor((1, 6, 16, 16), dtype=\"float32\")");
}

TEST(Pool, MaxAvgAdaptive) {
  ir::Var x = V("x", Tensor({1, 3, 32, 32}));
  EXPECT_EQ(Str(Infer("nn.max_pool2d", {x}, {{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}})),
            "R.Tensor((1, 3, 16, 16), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("nn.avg_pool2d", {x}, {{"pool_size", Ints({3})}, {"strides", Ints({2})},
                                              {"ceil_mode", ir::IntImm(ir::DataType::Bool(), 1)}})),
            "R.Tensor((1, 3, 16, 16), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("nn.adaptive_avg_pool2d", {x}, {{"output_size", Ints({1})}})), "R.Tensor((1, 3, 1, 1), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("nn.adaptive_avg_pool2d", {x})), "R.Tensor((1, 3, 32, 32), dtype=\"float32\")");
}

TEST(Pool, PackedLayouts) {
  // NCHW4c: the window runs over H and W; C stays split in 4s. NHWC4c into NCHW4c moves C.
  ir::Var x = V("x", Tensor({2, 1, 28, 28, 4}));
  EXPECT_EQ(Str(Infer("nn.max_pool2d", {x}, {{"pool_size", Ints({3, 3})}, {"strides", Ints({2, 2})},
                                              {"layout", ir::String("NCHW4c")}})),
            "R.Tensor((2, 1, 13, 13, 4), dtype=\"float32\")");
  ir::Var y = V("y", Tensor({2, 28, 28, 1, 4}));
  EXPECT_EQ(Str(Infer("nn.max_pool2d", {y}, {{"pool_size", Ints({3, 3})}, {"strides", Ints({2, 2})},
                                              {"layout", ir::String("NHWC4c")}, {"out_layout", ir::String("NCHW2c")}})),
            "R.Tensor((2, 2, 13, 13, 2), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.max_pool2d", {x}, {{"layout", ir::String("NCHW")}}),     // rank 5 vs 4
                                "R.nn.max_pool2d: expects data of rank 4, got 5"));
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.max_pool2d", {x}, {{"layout", ir::String("NCHW4d")}}),   // no primal D
                                "R.nn.max_pool2d: unsupported layout \"NCHW4d\""));
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.max_pool2d", {x}, {{"layout", ir::String("NCHWc")}}),    // no factor
                                "R.nn.max_pool2d: unsupported layout \"NCHWc\""));
}

TEST(NN, ActivationsSoftmaxNorms) {
  ir::Var n = SymVar("n");
  ir::Var x = V("x", Tensor({n, 16}));
  EXPECT_EQ(Str(Infer("nn.relu", {x})), "R.Tensor((n, 16), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("nn.softmax", {x}, {{"axis", I(-1)}})), "R.Tensor((n, 16), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.softmax", {x}, {{"axis", I(2)}}),
                                "R.nn.softmax: axis 2 is out of range for a tensor of rank 2"));
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.gelu", {V("i", Tensor({2}, "int32"))}),
                                "R.nn.gelu: expects a floating-point input, got int32"));
  ir::Var g = V("g", Tensor({16})), b = V("b", Tensor({16}));
  EXPECT_EQ(Str(Infer("nn.layer_norm", {x, g, b}, {{"axes", Ints({-1})}})), "R.Tensor((n, 16), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.layer_norm", {x, V("g2", Tensor({8})), b}, {{"axes", Ints({-1})}}),
                                "R.nn.layer_norm: gamma has shape (8,) but the normalized axes have (16,)"));
  EXPECT_EQ(Str(Infer("nn.rms_norm", {x, g})), "R.Tensor((n, 16), dtype=\"float32\")");
}

TEST(NN, BatchNormDropoutPadAttention) {
  ir::Var x = V("x", Tensor({2, 3, 4, 4}));
  ir::Var c = V("c", Tensor({3}));
  EXPECT_EQ(Str(Infer("nn.batch_norm", {x, c, c, c, c})),
            "R.Tuple(R.Tensor((2, 3, 4, 4), dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\"), "
            "R.Tensor((3,), dtype=\"float32\"))");
  EXPECT_EQ(Str(Infer("nn.dropout", {V("y", Tensor({5}))})),
            "R.Tuple(R.Tensor((5,), dtype=\"float32\"), R.Tensor((5,), dtype=\"float32\"))");
  EXPECT_EQ(Str(Infer("nn.pad", {V("y", Tensor({2, 3}))}, {{"pad_width", Ints({1, 1, 0, 2})}})),
            "R.Tensor((4, 5), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.pad", {V("y", Tensor({2, 3}))}, {{"pad_width", Ints({1, 1})}}),
                                "R.nn.pad: pad_width has 2 entries; a tensor of rank 2 needs 4"));
  EXPECT_EQ(Str(Infer("nn.attention", {V("q", Tensor({2, 7, 4, 8})), V("k", Tensor({2, 9, 4, 8})),
                                       V("v", Tensor({2, 9, 4, 16}))})),
            "R.Tensor((2, 7, 4, 16), dtype=\"float32\")");
}

TEST(Image, Resize2d) {
  EXPECT_EQ(Str(Infer("image.resize2d", {V("x", Tensor({1, 3, 8, 8})), Shape({16, 12})})),
            "R.Tensor((1, 3, 16, 12), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("image.resize2d", {V("x", Tensor({1, 3, 8, 8, 16})), Shape({16, 12})},
                      {{"layout", ir::String("NCHW16c")}})),
            "R.Tensor((1, 3, 16, 12, 16), dtype=\"float32\")");
}

TEST(NN, Relu6IsClip) {
  absl::StatusOr<ir::relax::Call> c = MakeOpCall("nn.relu6", {V("x", Tensor({3}))}, {}, {}, ir::IRModule());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)->op.as<ir::OpNode>()->name, "relax.clip");
  EXPECT_EQ(AsConst((*c)->args[2].as<ir::relax::PrimValueNode>()->value), std::optional<int64_t>(6));
  EXPECT_EQ(Str((*c)->ty), "R.Tensor((3,), dtype=\"float32\")");
}

TEST(NN, AttentionVariants) {
  ir::Var q = V("q", Tensor({2, 8, 4, 16})), k = V("k", Tensor({2, 10, 2, 16})), v = V("v", Tensor({2, 10, 2, 32}));
  absl::StatusOr<ir::relax::Call> plain = MakeOpCall("nn.attention", {q, k, v}, {}, {}, ir::IRModule());
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ((*plain)->op.as<ir::OpNode>()->name, "relax.nn.attention");
  EXPECT_EQ(Str((*plain)->ty), "R.Tensor((2, 8, 4, 32), dtype=\"float32\")");
  ir::Var bias = V("b", Tensor({1, 4, 8, 10}));
  absl::StatusOr<ir::relax::Call> biased = MakeOpCall("nn.attention", {q, k, v, bias}, {}, {}, ir::IRModule());
  ASSERT_TRUE(biased.ok()) << biased.status();
  EXPECT_EQ((*biased)->op.as<ir::OpNode>()->name, "relax.nn.attention_bias");
  absl::StatusOr<ir::relax::Call> nobias = MakeOpCall("nn.attention_bias", {q, k, v}, {}, {}, ir::IRModule());
  ASSERT_TRUE(nobias.ok());
  EXPECT_EQ((*nobias)->op.as<ir::OpNode>()->name, "relax.nn.attention");
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.attention", {q, k, v, V("b", Tensor({1, 4, 8, 9}))}),  // key length 10
                                "R.nn.attention_bias: bias and key sequence lengths differ"));
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.attention", {q, V("k3", Tensor({2, 10, 3, 16})), v}),  // 4 heads vs 3
                                "R.nn.attention: query heads (4) must be a multiple of key/value heads (3)"));
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.attention", {q, V("k", Tensor({2, 10, 2, 8})), v}),    // head dims differ
                                "R.nn.attention: query and key head dims differ: 16 vs 8"));
  ir::Var s = V("s", Tensor({3}, "int32"));
  ir::Var m = V("m", Tensor({}, "int32"));
  EXPECT_EQ(Str(Infer("nn.attention_var_len", {q, k, v, s, s, m, m})), "R.Tensor((2, 8, 4, 32), dtype=\"float32\")");
}

TEST(NN, NormsLossesShuffleFlatten) {
  ir::Var x = V("x", Tensor({2, 3, 8, 8}));
  ir::Var g = V("g", Tensor({3}));
  EXPECT_EQ(Str(Infer("nn.instance_norm", {x, g, g}, {{"channel_axis", I(1)}, {"axes", Ints({2, 3})}})),
            "R.Tensor((2, 3, 8, 8), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.instance_norm", {x, V("g4", Tensor({4})), g}, {{"channel_axis", I(1)}, {"axes", Ints({2, 3})}}),
                                "R.nn.instance_norm: gamma has 4 entries but there are 3 channels"));
  ir::Var pred = V("p", Tensor({5, 10})), tgt = V("t", Tensor({5}, "int64"));
  EXPECT_EQ(Str(Infer("nn.nll_loss", {pred, tgt})), "R.Tensor((), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("nn.nll_loss", {pred, tgt, V("w", Tensor({10}))}, {{"reduction", ir::String("none")}})),
            "R.Tensor((5,), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.nll_loss", {pred, tgt, V("w", Tensor({9}))}),
                                "R.nn.nll_loss: weights must have one entry per class"));
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.nll_loss", {pred, V("t2", Tensor({6}, "int64"))}),
                                "R.nn.nll_loss: targets shape (6,) does not match predictions"));
  EXPECT_EQ(Str(Infer("nn.cross_entropy_with_logits", {pred, V("l", Tensor({5, 10}))})), "R.Tensor((), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.cross_entropy_with_logits", {pred, V("l", Tensor({5, 9}))}),
                                "R.nn.cross_entropy_with_logits: predictions and labels must have the same shape"));
  EXPECT_EQ(Str(Infer("nn.pixel_shuffle", {V("y", Tensor({1, 8, 3, 5}))}, {{"upscale_factor", I(2)}})),
            "R.Tensor((1, 2, 6, 10), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.pixel_shuffle", {V("y", Tensor({1, 6, 3, 5}))}, {{"upscale_factor", I(2)}}),
                                "R.nn.pixel_shuffle: channels (6) must be divisible by upscale_factor^2"));
  EXPECT_EQ(Str(Infer("nn.batch_flatten", {x})), "R.Tensor((2, 192), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("nn.batch_flatten", {V("z", Tensor({4}))}),
                                "R.nn.batch_flatten: expects rank >= 2, got 1"));
}

TEST(NN, PoolAttributeOrderAndDefaults) {
  // TVM's attribute order puts dilation before padding; avg_pool1d/3d count padding by default.
  const OpSchema* mp = OpRegistry::Global().FindByScriptName("nn.max_pool2d");
  ASSERT_NE(mp, nullptr);
  EXPECT_EQ(mp->attrs[2].name, "dilation");
  EXPECT_EQ(mp->attrs[3].name, "padding");
  auto count_pad = [](const char* op) {
    for (const AttrSpec& a : OpRegistry::Global().FindByScriptName(op)->attrs) {
      if (a.name == "count_include_pad") return a.default_value.as<ir::IntImmNode>()->value;
    }
    return int64_t{-1};
  };
  EXPECT_EQ(count_pad("nn.avg_pool1d"), 1);
  EXPECT_EQ(count_pad("nn.avg_pool2d"), 0);
  EXPECT_EQ(count_pad("nn.avg_pool3d"), 1);
  EXPECT_EQ(count_pad("nn.max_pool1d"), 0);
}

TEST(Image, Resize3dGridSampleAffineGrid) {
  ir::Var x = V("x", Tensor({1, 3, 4, 8, 8}));
  EXPECT_EQ(Str(Infer("image.resize3d", {x, Shape({8, 16, 16})})), "R.Tensor((1, 3, 8, 16, 16), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("image.resize3d", {V("y", Tensor({1, 3, 8, 8})), Shape({8, 16, 16})}),  // rank 4
                                "R.image.resize3d: expects rank-5 data"));
  ir::Var img = V("img", Tensor({2, 3, 16, 16}));
  EXPECT_EQ(Str(Infer("image.grid_sample", {img, V("g", Tensor({2, 2, 7, 9}))})), "R.Tensor((2, 3, 7, 9), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("image.affine_grid", {V("theta", Tensor({2, 2, 3})), Shape({5, 6})})),
            "R.Tensor((2, 2, 5, 6), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("image.affine_grid", {V("theta", Tensor({2, 3, 3})), Shape({5, 6})}),
                                "R.image.affine_grid: data must have shape (N, 2, 3)"));
}

}  // namespace
}  // namespace kiln::relax::testing
