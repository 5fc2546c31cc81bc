# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((4,), dtype="float32") = R.add(x, R.const(1.5, "float32"))
        lv1: R.Tensor((4,), dtype="float32") = R.multiply(lv, R.const(0.10000000000000001, "float32"))
        lv2: R.Tensor((), dtype="int32") = R.const(-7, "int32")
        lv3: R.Tensor((), dtype="int64") = R.const(9007199254740993, "int64")
        lv4: R.Tensor((), dtype="bool") = R.const(True, "bool")
        lv5: R.Tensor((), dtype="float16") = R.const(0.25, "float16")
        lv6: R.Tensor((), dtype="float64") = R.const(2.5, "float64")
        lv7: R.Tensor((), dtype="uint8") = R.const(255, "uint8")
        lv8: R.Tensor((), dtype="int8") = R.const(-128, "int8")
        lv9: R.Tensor((), dtype="float32") = R.const(1.0, "float32")
        gv: R.Tensor((4,), dtype="float32") = R.subtract(lv1, lv9)
        R.output(gv)
    return gv
