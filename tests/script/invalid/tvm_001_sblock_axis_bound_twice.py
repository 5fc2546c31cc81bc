# expect-error: 8:13: vi is already defined
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.sblock("B"):
            vi = T.axis.S(16, i)
            vi = T.axis.S(16, j)
            B[vi, vi] = A[vi, vi]
