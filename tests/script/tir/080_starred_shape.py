# from tvm.script import tirx as T

# A starred sequence inside a tuple or list literal: (2, *A.shape).
@T.prim_func(s_tir=True)
def main(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (4, 8), "int32")
    B = T.match_buffer(b, [2, *A.shape], "int32")
    for i, j, k in T.grid(*B.shape):
        B[i, j, k] = A[j, k]
