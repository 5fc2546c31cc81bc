# from tvm.script import relax as R

@R.function
def main(v: R.Tensor((), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((4,), dtype="int32"), R.Tensor((3,), dtype="int64")):
    with R.dataflow():
        lv: R.Tensor((2, 3), dtype="float32") = R.full(R.shape([2, 3]), v, dtype="float32")
        lv1: R.Tensor((4,), dtype="int32") = R.zeros(R.shape([4]), dtype="int32")
        lv2: R.Tensor((2, 2), dtype="float16") = R.ones(R.shape([2, 2]), dtype="float16")
        lv3: R.Tensor((3,), dtype="int64") = R.arange(R.prim_value(0), R.prim_value(6), R.prim_value(2), dtype="int64")
        lv4: R.Tensor((2, 3), dtype="float32") = R.ones_like(lv, dtype="void")
        lv5: R.Tensor((2, 3), dtype="float32") = R.full_like(lv4, R.const(7.5, "float32"), dtype="void")
        lv6: R.Tensor((3, 3), dtype="float32") = R.eye(R.prim_value(3), R.prim_value(3), R.prim_value(0), dtype="float32")
        gv: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((4,), dtype="int32"), R.Tensor((3,), dtype="int64")) = lv5, lv1, lv3
        R.output(gv)
    return gv
