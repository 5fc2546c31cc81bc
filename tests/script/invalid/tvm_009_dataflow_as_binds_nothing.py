# expect-error: 5:10: binds no variable
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    with R.dataflow() as f:
        y = R.add(x, x)
        R.output(y)
    return y
