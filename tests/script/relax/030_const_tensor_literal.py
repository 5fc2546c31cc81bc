# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((2, 3), dtype="float32") = R.add(x, R.const([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], "float32"))
        lv1: R.Tensor((3,), dtype="int32") = R.const([1, -2, 3], "int32")
        gv: R.Tensor((2, 3), dtype="float32") = R.multiply(lv, R.astype(lv1, dtype="float32"))
        R.output(gv)
    return gv
