# expect-error: 5:5: else
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((4,), "float32"):
    if c:
        y = R.add(x, x)
    return x
