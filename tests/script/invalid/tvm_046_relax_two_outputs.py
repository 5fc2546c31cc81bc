# expect-error: 9:9: only one R.output
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    with R.dataflow():
        y = R.add(x, x)
        R.output()
        R.output(y)
    return y
