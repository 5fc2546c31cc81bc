# expect-error: 4:10: type annotation
# from tvm.script import relax as R
@R.function
def main(x) -> R.Tensor((4,), "float32"):
    return x
