# expect-error: 5:5: chained assignment
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    y = z = R.add(x, x)
    return x
