# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R
# R.layout_transform with T.index_map (int32 and default int64 indices, a bare lambda, padding by
# floormod) and a conv2d in a packed layout.

@R.function
def main(x: R.Tensor((2, 32, 40, 40), dtype="float32"), w: R.Tensor((32, 32, 3, 3), dtype="float32"), y: R.Tensor((14,), dtype="float32")):
    with R.dataflow():
        lv: R.Tensor((2, 8, 40, 40, 4), dtype="float32") = R.layout_transform(x, index_map=T.index_map(lambda i0, i1, i2, i3: (i0, i1 // 4, i2, i3, i1 % 4), index_dtype="int32"), pad_value=None)
        lv1: R.Tensor((8, 32, 3, 3, 4), dtype="float32") = R.layout_transform(w, index_map=lambda i0, i1, i2, i3: (i0 // 4, i1, i2, i3, i0 % 4))
        gv: R.Tensor((2, 8, 38, 38, 4), dtype="float32") = R.nn.conv2d(lv, lv1, data_layout="NCHW4c", kernel_layout="OIHW4o", out_layout="NCHW4c")
        lv2: R.Tensor((16,), dtype="float32") = R.layout_transform(y, index_map=T.index_map(lambda i: (i % 16,)))
        R.output(gv, lv2)
    return (gv, lv2)
