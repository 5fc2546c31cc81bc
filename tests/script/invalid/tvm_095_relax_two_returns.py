# expect-error: 6:5: return
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32")):
    return x
    return x
