# expect-error: 8:23: is a string, not a dimension
from tvm.script import relax as R

n = "n"


@R.function
def main(x: R.Tensor((n, 4), "float32")) -> R.Tensor((n, 4), "float32"):
    return x
