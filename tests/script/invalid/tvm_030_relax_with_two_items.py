# expect-error: 5:5: unsupported with
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    with R.dataflow(), R.dataflow():
        y = R.add(x, x)
        R.output(y)
    return y
