# expect-error: 8:9: axis
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
    z = R.sum(x, axis=[5], keepdims=False)
    return z
