# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((3,), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((2, 3), dtype="float32") = R.add(x, y)
        lv1: R.Tensor((2, 3), dtype="float32") = R.subtract(lv, b)
        lv2: R.Tensor((2, 3), dtype="float32") = R.multiply(lv1, y)
        lv3: R.Tensor((2, 3), dtype="float32") = R.divide(lv2, x)
        lv4: R.Tensor((2, 3), dtype="float32") = R.floor_divide(lv3, y)
        lv5: R.Tensor((2, 3), dtype="float32") = R.power(lv4, R.const(2.0, "float32"))
        lv6: R.Tensor((2, 3), dtype="float32") = R.maximum(lv5, x)
        lv7: R.Tensor((2, 3), dtype="float32") = R.minimum(lv6, y)
        lv8: R.Tensor((2, 3), dtype="float32") = R.mod(lv7, y)
        gv: R.Tensor((2, 3), dtype="float32") = R.floor_mod(lv8, b)
        R.output(gv)
    return gv
