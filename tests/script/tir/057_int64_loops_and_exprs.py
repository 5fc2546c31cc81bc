# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((T.int64(1024),), "int64"), B: T.Buffer((T.int64(1024),), "int64")):
    for i in range(T.int64(1), T.int64(1024)):
        B[i] = B[i - T.int64(1)] + A[i] * T.int64(3) // T.int64(2) % T.int64(1000000007)
    for i in T.parallel(T.int64(1024)):
        B[i] = T.max(B[i], T.int64(0)) + T.min(A[i], T.int64(-5))
