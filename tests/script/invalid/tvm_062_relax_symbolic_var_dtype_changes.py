# expect-error: 7:5: same dtype
# from tvm.script import relax as R
# from tvm.script import tirx as T
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    n = T.int64()
    n = T.int32()
    return x
