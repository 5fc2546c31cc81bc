# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(a: T.handle, b: T.handle, c: T.handle):
    m = T.int32()
    n = T.int32()
    A = T.match_buffer(a, (m, n))
    B = T.match_buffer(b, (n,))
    C = T.match_buffer(c, (m,))
    for i in range(m):
        C[i] = T.float32(0.0)
        for j in range(n):
            C[i] = C[i] + A[i, j] * B[j]
