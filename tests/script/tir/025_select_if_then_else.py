# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((10, 10), "float32"), B: T.Buffer((12, 12), "float32"), C: T.Buffer((10,), "int32")):
    for i, j in T.grid(12, 12):
        B[i, j] = T.if_then_else(1 <= i and i < 11 and 1 <= j and j < 11, A[i - 1, j - 1], T.float32(0.0))
    for i in range(10):
        C[i] = T.Select(A[i, 0] > A[i, 1], 0, 1)
        C[i] = T.Select(C[i] == 0, T.if_then_else(i < 5, C[i], -C[i]), T.max(C[i], 3))
