# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((1, 4, 16, 16), dtype="float32")) -> R.Tensor((1, 4, 1, 1), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((1, 4, 8, 8), dtype="float32") = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], dilation=[1, 1], padding=[1, 1, 1, 1], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
        lv1: R.Tensor((1, 4, 4, 4), dtype="float32") = R.nn.avg_pool2d(lv, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=True, layout="NCHW", out_layout="NCHW")
        lv2: R.Tensor((1, 4, 2, 2), dtype="float32") = R.nn.adaptive_avg_pool2d(lv1, output_size=[2, 2], layout="NCHW", out_layout="NCHW")
        lv3: R.Tensor((1, 4, 1, 1), dtype="float32") = R.nn.adaptive_avg_pool2d(lv2, output_size=[1, 1], layout="NCHW")
        R.output(lv3)
    return lv3
