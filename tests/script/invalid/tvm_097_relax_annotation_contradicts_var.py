# expect-error: 5:5: annotation
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32")):
    y: R.Shape([4]) = x
    return y
