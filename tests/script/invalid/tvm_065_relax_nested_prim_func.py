# expect-error: 7:5: inline prim_func
# from tvm.script import relax as R
# from tvm.script import tirx as T
@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)
    return x
