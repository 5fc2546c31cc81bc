# expect-error: 5:5: decorated
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    def f(y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return y
    return x
