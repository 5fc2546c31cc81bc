# expect-error: 6:5: inconsistent annotation
# from tvm.script import relax as R
# from tvm.script import tirx as T
@R.function
def main(x: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor((4,), "float32"):
    y: R.Tensor((8,), "float32") = R.match_cast(x, R.Tensor((4,), "float32"))
    return y
