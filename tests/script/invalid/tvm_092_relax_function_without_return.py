# expect-error: 4:1: return
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32")):
    y = R.add(x, x)
