# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def square(x: T.float32) -> T.float32:
        return x * x

    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        cls = Module
        for i in range(16):
            B[i] = cls.square(A[i]) + T.float32(1.0)
