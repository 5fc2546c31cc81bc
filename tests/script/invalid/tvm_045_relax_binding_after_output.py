# expect-error: 9:9: may not follow the dataflow block's R.output
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    with R.dataflow():
        y = R.add(x, x)
        R.output(y)
        z = R.add(y, y)
    return y
