# expect-error: 5:5: same variable
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32"), c: R.Tensor((), "bool")):
    if c:
        y = R.add(x, x)
    else:
        z = R.multiply(x, x)
    return x
