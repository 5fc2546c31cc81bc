#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

TEST(Vision, RoiAlignAndPool) {
  ir::Var data = V("data", Tensor({1, 256, 14, 14}));
  ir::Var rois = V("rois", Tensor({4, 5}));
  EXPECT_EQ(Str(Infer("vision.roi_align", {data, rois}, {{"pooled_size", I(7)}, {"spatial_scale", ir::FloatImm(ir::DataType::Float(64), 0.5)}})),
            "R.Tensor((4, 256, 7, 7), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("vision.roi_align", {data, rois},
                      {{"pooled_size", Ints({2, 3})}, {"spatial_scale", ir::FloatImm(ir::DataType::Float(64), 1.0)},
                       {"layout", ir::String("NHWC")}})),
            "R.Tensor((4, 2, 3, 14), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("vision.roi_align", {data, V("bad", Tensor({4, 4}))},
                     {{"pooled_size", I(7)}, {"spatial_scale", ir::FloatImm(ir::DataType::Float(64), 1.0)}})
                   , "R.vision.roi_align: rois must have shape (num_roi, 5)"));
  EXPECT_EQ(Str(Infer("vision.roi_pool", {data, rois}, {{"pooled_size", I(3)}, {"spatial_scale", ir::FloatImm(ir::DataType::Float(64), 1.0)}})),
            "R.Tensor((4, 256, 3, 3), dtype=\"float32\")");
}

TEST(Vision, NmsFamily) {
  ir::Var boxes = V("boxes", Tensor({2, 6, 4}));
  ir::Var scores = V("scores", Tensor({2, 3, 6}));
  ir::Var k = V("k", Tensor({}, "int64"));
  ir::Var th = V("th", Tensor({}));
  EXPECT_EQ(Str(Infer("vision.all_class_non_max_suppression", {boxes, scores, k, th, th})),
            "R.Tuple(R.Tensor((36, 3), dtype=\"int64\"), R.Tensor((1,), dtype=\"int64\"))");
  EXPECT_EQ(Str(Infer("vision.all_class_non_max_suppression", {boxes, scores, k, th, th},
                      {{"output_format", ir::String("tensorflow")}})),
            "R.Tuple(R.Tensor((2, 18, 2), dtype=\"int64\"), R.Tensor((2, 18), dtype=\"float32\"), "
            "R.Tensor((2,), dtype=\"int64\"))");
  ir::Var data = V("data", Tensor({2, 6, 6}));
  EXPECT_EQ(Str(Infer("vision.get_valid_counts", {data})),
            "R.Tuple(R.Tensor((2,), dtype=\"int32\"), R.Tensor((2, 6, 6), dtype=\"float32\"), "
            "R.Tensor((2, 6), dtype=\"int32\"))");
  EXPECT_TRUE(IsInvalidArgument(Infer("vision.get_valid_counts", {data}, {{"score_index", I(6)}}),
                                "R.vision.get_valid_counts: score_index must be in [0, 6), got 6"));
  ir::Var valid = V("valid", Tensor({2}, "int32"));
  ir::Var idx = V("idx", Tensor({2, 6}, "int32"));
  EXPECT_EQ(Str(Infer("vision.non_max_suppression", {data, valid, idx})),
            "R.Tuple(R.Tensor((2, 6), dtype=\"int32\"), R.Tensor((2, 1), dtype=\"int32\"))");
  EXPECT_EQ(Str(Infer("vision.non_max_suppression", {data, valid, idx}, {{"return_indices", ir::IntImm(ir::DataType::Bool(), 0)}})),
            "R.Tensor((2, 6, 6), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("vision.non_max_suppression", {data, V("v64", Tensor({2}, "int64")), idx}),
                                "R.vision.non_max_suppression: valid_count must be int32"));
}

TEST(Vision, MultiboxTransformLoc) {
  ir::Var cls = V("cls", Tensor({1, 3, 5}));
  ir::Var loc = V("loc", Tensor({1, 20}));
  ir::Var anchor = V("anchor", Tensor({1, 5, 4}));
  EXPECT_EQ(Str(Infer("vision.multibox_transform_loc", {cls, loc, anchor})),
            "R.Tuple(R.Tensor((1, 5, 4), dtype=\"float32\"), R.Tensor((1, 3, 5), dtype=\"float32\"))");
  EXPECT_TRUE(IsInvalidArgument(Infer("vision.multibox_transform_loc", {cls, V("bad", Tensor({1, 16})), anchor}),
                                "R.vision.multibox_transform_loc: loc_pred.shape[1] must be 4*N"));
}

}  // namespace
}  // namespace kiln::relax::testing
