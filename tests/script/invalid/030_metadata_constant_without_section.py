# expect-error: 8:51: metadata
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
    y: R.Tensor((2,), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
    return y
