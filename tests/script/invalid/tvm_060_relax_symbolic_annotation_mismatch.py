# expect-error: 6:5: declared symbolic variable
# from tvm.script import relax as R
# from tvm.script import tirx as T
@R.function
def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
    m: T.int32 = T.int64()
    return x
