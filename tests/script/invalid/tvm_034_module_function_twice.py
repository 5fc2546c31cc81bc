# expect-error: 11:5: defined twice
# from tvm.script import ir as I
# from tvm.script import tirx as T
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)

    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(2)
