# expect-error: 8:9: concat
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="int32")) -> R.Tensor((4, 3), dtype="float32"):
    z = R.concat((x, y), axis=0)
    return z
