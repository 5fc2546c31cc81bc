# expect-error: 6:5: non-PrimType
# from tvm.script import relax as R
# from tvm.script import tirx as T
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    x = T.int64()
    return x
