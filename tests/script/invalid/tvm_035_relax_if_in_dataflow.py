# expect-error: 6:9: dataflow
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((4,), "float32"):
    with R.dataflow():
        if c:
            y = R.add(x, x)
        else:
            y = R.multiply(x, x)
        R.output(y)
    return y
