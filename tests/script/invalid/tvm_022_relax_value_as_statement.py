# expect-error: 5:5: bound to a variable
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    R.add(x, x)
    return x
