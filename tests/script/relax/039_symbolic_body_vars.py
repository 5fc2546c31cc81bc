# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(("batch", 16), dtype="float16"), w: R.Tensor((16, 32), dtype="float16")) -> R.Tensor(("batch", 32), dtype="float16"):
    batch = T.int64()
    with R.dataflow():
        lv: R.Tensor((batch, 32), dtype="float16") = R.matmul(x, w, out_dtype="void")
        lv1: R.Tensor((batch * 32,), dtype="float16") = R.reshape(lv, R.shape([batch * 32]))
        lv2: R.Tensor((batch, 32), dtype="float16") = R.reshape(lv1, R.shape([batch, 32]))
        R.output(lv2)
    return lv2
