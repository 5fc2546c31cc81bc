# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(q: R.Tensor((1, 8, 2, 16), dtype="float16"), k: R.Tensor((1, 8, 2, 16), dtype="float16"), v: R.Tensor((1, 8, 2, 16), dtype="float16"), x: R.Tensor((4, 16), dtype="float32"), w: R.Tensor((8, 16), dtype="float32"), b: R.Tensor((8,), dtype="float32"), img: R.Tensor((1, 4, 8, 8), dtype="float32"), wt: R.Tensor((4, 2, 3, 3), dtype="float32")) -> R.Tensor((1, 8, 2, 16), dtype="float16"):
    with R.dataflow():
        lv: R.Tensor((1, 8, 2, 16), dtype="float16") = R.nn.attention(q, k, v, scale=None, causal_mask="TopLeft", window_size=None)
        lv1: R.Tensor((4, 8), dtype="float32") = R.linear(x, w, b)
        lv2: R.Tensor((1, 2, 10, 10), dtype="float32") = R.nn.conv2d_transpose(img, wt, strides=[1, 1], padding=[0, 0, 0, 0], output_padding=[0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype="void")
        R.output(lv)
    return lv
