# expect-error: 17:45: R.call_tir_inplace holds its arguments as an in-line tuple
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def scale(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = B[i] * T.float32(2)

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        cls = Module
        pair = (x, y)
        out = R.call_tir_inplace(cls.scale, pair, [0], R.Tensor((4,), "float32"))
        return out
