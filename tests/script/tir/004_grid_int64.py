# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((T.int64(4), T.int64(8), T.int64(2)), "float32"), B: T.Buffer((T.int64(2), T.int64(8), T.int64(4)), "float32")):
    for i, j, k in T.grid(T.int64(4), T.int64(8), T.int64(2)):
        B[k, j, i] = A[i, j, k]
    for i in range(T.int64(2)):
        B[i, T.int64(0), T.int64(0)] = A[T.int64(0), T.int64(0), i] + T.float32(1.0)
