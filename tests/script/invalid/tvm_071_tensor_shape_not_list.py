# expect-error: 4:13: shape
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor(5, "float32")) -> R.Tensor(5, "float32"):
    return x
