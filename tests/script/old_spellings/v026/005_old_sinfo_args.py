# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function(pure=False)
def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
    y = R.call_packed("f", x, ty_args=R.Tensor((4,), dtype="float32"))
    return y
