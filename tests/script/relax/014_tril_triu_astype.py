# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((1, 3, 10, 10), dtype="float32")) -> R.Tensor((1, 3, 10, 10), dtype="float16"):
    with R.dataflow():
        lv: R.Tensor((1, 3, 10, 10), dtype="float32") = R.tril(x, R.prim_value(1))
        lv1: R.Tensor((1, 3, 10, 10), dtype="float32") = R.triu(lv, R.prim_value(-1))
        lv2: R.Tensor((1, 3, 10, 10), dtype="int8") = R.astype(lv1, dtype="int8")
        lv3: R.Tensor((1, 3, 10, 10), dtype="bfloat16") = R.astype(lv2, dtype="bfloat16")
        gv: R.Tensor((1, 3, 10, 10), dtype="float16") = R.astype(lv3, dtype="float16")
        R.output(gv)
    return gv
