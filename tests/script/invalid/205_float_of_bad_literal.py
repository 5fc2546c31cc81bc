# expect-error: 7:23: invalid literal for float()
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    # Python's float() raises ValueError on this literal: the program is rejected.
    z = R.const(float("1.5x"), "float32")
    return R.add(x, z)
