# expect-error: 8:9: matmul
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((4, 5), dtype="float32")) -> R.Tensor((2, 5), dtype="float32"):
    z = R.matmul(x, y)
    return z
