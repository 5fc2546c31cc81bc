# from tvm.script import tirx as T

# `a if cond else b` with a TIR condition is T.if_then_else(cond, a, b), as in TVM.
@T.prim_func(private=True, s_tir=True)
def func(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "int32")):
    for i, j in T.grid(128, 128):
        B[i, j] = i if i < j else j
        A[i, j] = A[i, j] if 0 < i else T.float32(1.0)
