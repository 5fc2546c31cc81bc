# expect-error: 8:9: dim
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
    z = R.nn.softmax(x, dim=-1)
    return z
