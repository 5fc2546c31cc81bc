# expect-error: 7:13: assigned twice
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.sblock("B"):
            vi, vi = T.axis.remap("SS", [i, j])
            B[vi, vi] = A[vi, vi]
