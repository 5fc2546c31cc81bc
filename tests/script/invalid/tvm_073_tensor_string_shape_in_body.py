# expect-error: 5:8: String-defined shape
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32")):
    y: R.Tensor(("n",), "float32") = x
    return y
