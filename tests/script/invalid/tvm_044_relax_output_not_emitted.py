# expect-error: 8:9: not emitted by this dataflow block
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    with R.dataflow():
        y = R.add(x, x)
        R.output(x)
    return x
