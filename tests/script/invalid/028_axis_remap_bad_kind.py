# expect-error: 9:22: remap
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(8, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SX", [i, j])
            B[vi, vj] = A[vi, vj]
