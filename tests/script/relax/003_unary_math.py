# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((8,), dtype="float32") = R.exp(x)
        lv1: R.Tensor((8,), dtype="float32") = R.log(lv)
        lv2: R.Tensor((8,), dtype="float32") = R.sqrt(lv1)
        lv3: R.Tensor((8,), dtype="float32") = R.rsqrt(lv2)
        lv4: R.Tensor((8,), dtype="float32") = R.abs(lv3)
        lv5: R.Tensor((8,), dtype="float32") = R.negative(lv4)
        lv6: R.Tensor((8,), dtype="float32") = R.sin(lv5)
        lv7: R.Tensor((8,), dtype="float32") = R.cos(lv6)
        lv8: R.Tensor((8,), dtype="float32") = R.tanh(lv7)
        lv9: R.Tensor((8,), dtype="float32") = R.sigmoid(lv8)
        lv10: R.Tensor((8,), dtype="float32") = R.square(lv9)
        lv11: R.Tensor((8,), dtype="float32") = R.floor(lv10)
        lv12: R.Tensor((8,), dtype="float32") = R.ceil(lv11)
        lv13: R.Tensor((8,), dtype="float32") = R.round(lv12)
        lv14: R.Tensor((8,), dtype="float32") = R.sign(lv13)
        lv15: R.Tensor((8,), dtype="float32") = R.erf(lv14)
        lv16: R.Tensor((8,), dtype="float32") = R.clip(lv15, R.prim_value(T.float64(-1.0)), R.prim_value(T.float64(1.0)))
        lv17: R.Tensor((8,), dtype="float32") = R.tan(lv16)
        lv18: R.Tensor((8,), dtype="float32") = R.asin(lv17)
        lv19: R.Tensor((8,), dtype="float32") = R.acos(lv18)
        lv20: R.Tensor((8,), dtype="float32") = R.atan(lv19)
        lv21: R.Tensor((8,), dtype="float32") = R.sinh(lv20)
        lv22: R.Tensor((8,), dtype="float32") = R.cosh(lv21)
        gv: R.Tensor((8,), dtype="float32") = R.asinh(lv22)
        R.output(gv)
    return gv
