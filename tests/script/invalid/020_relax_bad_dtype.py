# expect-error: 7:34: flaot32
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4,), dtype="flaot32")) -> R.Tensor((4,), dtype="float32"):
    return x
