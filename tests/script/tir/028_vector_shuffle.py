# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((16,), "float32")):
    B[0:8] = T.Shuffle([A[0:8]], [7, 6, 5, 4, 3, 2, 1, 0])
    C[0:16] = T.Shuffle([A[0:8], B[0:8]], [0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15])
    C[0:4] = T.Shuffle([A[0:4], B[4:8]], [0, 1, 6, 7])
