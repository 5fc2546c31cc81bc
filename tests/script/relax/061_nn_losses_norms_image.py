# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 8, 6, 6), dtype="float32"), g: R.Tensor((8,), dtype="float32"), p: R.Tensor((5, 10), dtype="float32"), t: R.Tensor((5,), dtype="int64"), w: R.Tensor((10,), dtype="float32"), v: R.Tensor((1, 3, 4, 8, 8), dtype="float32"), grid: R.Tensor((2, 2, 3, 3), dtype="float32"), theta: R.Tensor((2, 2, 3), dtype="float32"), q: R.Tensor((1, 8, 4, 16), dtype="float16"), bias: R.Tensor((1, 4, 8, 8), dtype="float16")) -> R.Tensor((2, 8, 6, 6), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((2, 8, 6, 6), dtype="float32") = R.nn.instance_norm(x, g, g, channel_axis=1, axes=[2, 3], epsilon=1.0000000000000001e-05, center=True, scale=True)
        lv1: R.Tensor((), dtype="float32") = R.nn.nll_loss(p, t, w, reduction="mean", ignore_index=-100)
        lv2: R.Tensor((5,), dtype="float32") = R.nn.nll_loss(p, t, reduction="none", ignore_index=0)
        lv3: R.Tensor((), dtype="float32") = R.nn.cross_entropy_with_logits(p, p)
        lv4: R.Tensor((2, 2, 12, 12), dtype="float32") = R.nn.pixel_shuffle(x, upscale_factor=2)
        lv5: R.Tensor((2, 288), dtype="float32") = R.nn.batch_flatten(x)
        lv6: R.Tensor((2, 8, 6, 6), dtype="float32") = R.clip(lv, R.prim_value(0), R.prim_value(6))
        lv7: R.Tensor((1, 3, 8, 16, 16), dtype="float32") = R.image.resize3d(v, R.shape([8, 16, 16]), roi=[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], layout="NCDHW", method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype="void")
        lv8: R.Tensor((2, 8, 3, 3), dtype="float32") = R.image.grid_sample(x, grid, method="bilinear", layout="NCHW", padding_mode="zeros", align_corners=False)
        lv9: R.Tensor((2, 2, 5, 7), dtype="float32") = R.image.affine_grid(theta, R.shape([5, 7]), align_corners=True)
        lv10: R.Tensor((1, 8, 4, 16), dtype="float16") = R.nn.attention_bias(q, q, q, bias, scale=None, causal_mask="BottomRight", window_size=None)
        lv11: R.Tensor((2, 8, 3, 3), dtype="float32") = R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
        lv12: R.Tensor((2, 2), dtype="float32") = R.einsum((lv5, lv5), subscripts="ij,kj->ik")
        lv13: R.Tensor((2, 8, 6, 6), dtype="float32") = R.nn.relu6(lv)
        R.output(lv6)
    return lv6
