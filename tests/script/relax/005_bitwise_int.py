# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((16,), dtype="int32"), y: R.Tensor((16,), dtype="int32")) -> R.Tensor((16,), dtype="int32"):
    with R.dataflow():
        lv: R.Tensor((16,), dtype="int32") = R.bitwise_and(x, y)
        lv1: R.Tensor((16,), dtype="int32") = R.bitwise_or(lv, y)
        lv2: R.Tensor((16,), dtype="int32") = R.bitwise_xor(lv1, x)
        lv3: R.Tensor((16,), dtype="int32") = R.bitwise_not(lv2)
        lv4: R.Tensor((16,), dtype="int32") = R.left_shift(lv3, R.const(2, "int32"))
        gv: R.Tensor((16,), dtype="int32") = R.right_shift(lv4, R.const(1, "int32"))
        R.output(gv)
    return gv
