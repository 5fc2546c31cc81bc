# expect-error: 8:9: match_cast
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor((4,), dtype="float32"):
    y = R.match_cast(x, x)
    return y
