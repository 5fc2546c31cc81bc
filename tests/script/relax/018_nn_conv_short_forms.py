# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((1, 8, 8, 4), dtype="float32"), w: R.Tensor((6, 3, 3, 4), dtype="float32"), x1: R.Tensor((1, 4, 10), dtype="float32"), w1: R.Tensor((6, 4, 3), dtype="float32")) -> R.Tensor((1, 6, 8), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((1, 6, 6, 6), dtype="float32") = R.nn.conv2d(x, w, data_layout="NHWC", kernel_layout="OHWI")
        lv1: R.Tensor((1, 6, 8), dtype="float32") = R.nn.conv1d(x1, w1, strides=1, padding=0)
        R.output(lv1)
    return lv1
