# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
    n = T.int64()
    y = R.match_cast(x, R.Tensor((n,), "float32"))
    return x
