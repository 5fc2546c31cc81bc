# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(("n", "m"), dtype="float32"), y: R.Tensor(("m", "n * 2"), dtype="float32")) -> R.Tensor(("n", "n * 2"), dtype="float32"):
    n = T.int64()
    m = T.int64()
    with R.dataflow():
        lv: R.Tensor((n, n * 2), dtype="float32") = R.matmul(x, y, out_dtype="void")
        gv: R.Tensor((n, n * 2), dtype="float32") = R.nn.softmax(lv, axis=-1)
        R.output(gv)
    return gv
