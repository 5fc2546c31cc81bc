# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 8, 16), dtype="float16"), w: R.Tensor((16, 32), dtype="float16"), v: R.Tensor((32,), dtype="float16")) -> R.Tensor((2, 8), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((2, 8, 32), dtype="float16") = R.matmul(x, w, out_dtype="void")
        lv1: R.Tensor((2, 8), dtype="float32") = R.matmul(lv, v, out_dtype="float32")
        R.output(lv1)
    return lv1
