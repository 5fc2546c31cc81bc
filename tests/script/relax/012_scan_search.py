# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((3, 5), dtype="float32")) -> R.Tuple(R.Tensor((3, 5), dtype="float32"), R.Tensor((3,), dtype="int64"), R.Tensor((1, 5), dtype="int64")):
    with R.dataflow():
        lv: R.Tensor((3, 5), dtype="float32") = R.cumsum(x, axis=1, dtype="float32", exclusive=False)
        lv1: R.Tensor((15,), dtype="float32") = R.cumsum(x, axis=None, dtype="void", exclusive=True)
        lv2: R.Tensor((3, 5), dtype="float64") = R.cumprod(x, axis=0, dtype="float64", exclusive=False)
        lv3: R.Tensor((3,), dtype="int64") = R.argmax(x, axis=1, keepdims=False)
        lv4: R.Tensor((1, 5), dtype="int64") = R.argmin(x, axis=0, keepdims=True)
        gv: R.Tuple(R.Tensor((3, 5), dtype="float32"), R.Tensor((3,), dtype="int64"), R.Tensor((1, 5), dtype="int64")) = lv, lv3, lv4
        R.output(gv)
    return gv
