# expect-error: 5:9: None
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32")):
    y = R.match_cast(x, None)
    return y
