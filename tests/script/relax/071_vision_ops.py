# from tvm.script import relax as R

@R.function
def main(data: R.Tensor((1, 256, 14, 14), dtype="float32"), rois: R.Tensor((4, 5), dtype="float32"), boxes: R.Tensor((1, 6, 4), dtype="float32"), scores: R.Tensor((1, 2, 6), dtype="float32"), cand: R.Tensor((1, 6, 6), dtype="float32"), cls_pred: R.Tensor((1, 3, 5), dtype="float32"), loc_pred: R.Tensor((1, 20), dtype="float32"), anchor: R.Tensor((1, 5, 4), dtype="float32")):
    lv: R.Tensor((4, 256, 7, 7), dtype="float32") = R.vision.roi_align(data, rois, pooled_size=[7, 7], spatial_scale=0.0625, sample_ratio=2, aligned=False, layout="NCHW", mode="avg")
    lv1: R.Tensor((4, 256, 3, 3), dtype="float32") = R.vision.roi_pool(data, rois, pooled_size=[3, 3], spatial_scale=1.0, layout="NCHW")
    lv2: R.Tuple(R.Tensor((12, 3), dtype="int64"), R.Tensor((1,), dtype="int64")) = R.vision.all_class_non_max_suppression(boxes, scores, R.const(3, "int64"), R.const(0.5, "float32"), R.const(0.0, "float32"), output_format="onnx")
    lv3: R.Tuple(R.Tensor((1,), dtype="int32"), R.Tensor((1, 6, 6), dtype="float32"), R.Tensor((1, 6), dtype="int32")) = R.vision.get_valid_counts(cand, score_threshold=0.0, id_index=0, score_index=1)
    lv4: R.Tensor((1,), dtype="int32") = lv3[0]
    lv5: R.Tensor((1, 6, 6), dtype="float32") = lv3[1]
    lv6: R.Tensor((1, 6), dtype="int32") = lv3[2]
    lv7: R.Tuple(R.Tensor((1, 6), dtype="int32"), R.Tensor((1, 1), dtype="int32")) = R.vision.non_max_suppression(lv5, lv4, lv6, max_output_size=-1, iou_threshold=0.5, force_suppress=False, top_k=-1, coord_start=2, score_index=1, id_index=0, return_indices=True, invalid_to_bottom=False, soft_nms_sigma=0.0, score_threshold=0.0)
    lv8: R.Tuple(R.Tensor((1, 5, 4), dtype="float32"), R.Tensor((1, 3, 5), dtype="float32")) = R.vision.multibox_transform_loc(cls_pred, loc_pred, anchor, clip=False, threshold=0.0, variances=[1.0, 1.0, 1.0, 1.0], keep_background=True)
    return lv7
