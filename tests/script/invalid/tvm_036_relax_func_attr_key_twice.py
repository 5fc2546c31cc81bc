# expect-error: 6:5: twice
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    R.func_attr({"k": 1})
    R.func_attr({"k": 2})
    return x
