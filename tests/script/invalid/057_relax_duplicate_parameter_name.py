# expect-error: 5:40: duplicate parameter name x
# from tvm.script import relax as R
# The second x was silently renamed x_1 (and the body's x went to it).
@R.function
def main(x: R.Tensor((4,), "float32"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    return x
