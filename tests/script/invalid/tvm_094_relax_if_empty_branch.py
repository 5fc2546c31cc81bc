# expect-error: 5:5: empty body
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32"), c: R.Tensor((), "bool")):
    if c:
        pass
    else:
        y = R.multiply(x, x)
    return x
