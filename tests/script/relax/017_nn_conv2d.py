# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((1, 3, 32, 32), dtype="float32"), w: R.Tensor((16, 3, 3, 3), dtype="float32"), dw: R.Tensor((16, 1, 3, 3), dtype="float32")) -> R.Tensor((1, 16, 16, 16), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((1, 16, 32, 32), dtype="float32") = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
        lv1: R.Tensor((1, 16, 16, 16), dtype="float32") = R.nn.conv2d(lv, dw, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=16, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="float32")
        R.output(lv1)
    return lv1
