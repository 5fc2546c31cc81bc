# expect-error: 7:45: Type annotation
# from tvm.script import ir as I
# from tvm.script import tirx as T
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), n):
        A[0] = T.float32(1)
