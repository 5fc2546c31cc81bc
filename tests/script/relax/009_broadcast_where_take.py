# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((1, 4), dtype="float32"), c: R.Tensor((3, 4), dtype="bool"), idx: R.Tensor((2,), dtype="int64")) -> R.Tensor((2, 4), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(x, R.shape([3, 4]))
        lv1: R.Tensor((3, 4), dtype="float32") = R.zeros_like(lv)
        lv2: R.Tensor((3, 4), dtype="float32") = R.where(c, lv, lv1)
        lv3: R.Tensor((2, 4), dtype="float32") = R.take(lv2, idx, axis=0)
        lv4: R.Tensor((), dtype="float32") = R.take(lv3, R.const(1, "int64"), axis=None, mode="fast")
        R.output(lv3)
    return lv3
