# expect-error: 6:5: a = b = c
# from tvm.script import ir as I
# from tvm.script import tirx as T
@I.ir_module
class Module:
    a = b = 5
    @T.prim_func
    def main(A: T.Buffer((16,), "float32")):
        A[0] = T.float32(1)
