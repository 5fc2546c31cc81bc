# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def copy(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        # with T.sblock("root"):
        for i in range(8):
            with T.sblock("copy"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi]

    @T.prim_func
    def scale(A: T.Buffer((8,), "float32"), s: T.float32):
        for i in T.vectorized(8):
            A[i] = A[i] * s

    @T.prim_func(private=True)
    def helper(A: T.Buffer((8,), "int32")):
        for i in range(8):
            A[i] = i
