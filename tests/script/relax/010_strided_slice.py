# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((8, 9, 10, 10), dtype="float32")) -> R.Tensor((4, 9, 10, 3), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((4, 9, 10, 3), dtype="float32") = R.strided_slice(x, axes=[0, 3], begin=[1, 8], end=[8, 0], strides=[2, -3], assume_inbound=False)
        lv1: R.Tensor((4, 9, 10, 3), dtype="float32") = R.strided_slice(lv, (R.prim_value(0),), (R.prim_value(0),), (R.prim_value(4),))
        R.output(lv)
    return lv
