# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((4,), dtype="float32") = R.exp(x)
        gv: R.Tensor((4,), dtype="float32") = R.add(lv, x)
        R.output(gv)
    y: R.Tensor((4,), dtype="float32") = R.multiply(gv, gv)
    with R.dataflow():
        lv1: R.Tensor((4,), dtype="float32") = R.sqrt(y)
        gv1: R.Tensor((4,), dtype="float32") = R.negative(lv1)
        R.output(gv1)
    return gv1
