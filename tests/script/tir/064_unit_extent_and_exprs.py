# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((1, 64), "float32"), B: T.Buffer((64,), "float32"), n: T.int32):
    for i in range(1):
        for j in range(n * 2 + 1, 64):
            B[j] = A[i, j] * T.Cast("float32", j - n) + T.float32(-0.5)
    for j in range(T.min(n, 64)):
        B[j] = -B[j]
