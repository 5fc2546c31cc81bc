# from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for io in range((n + 3) // 4):
        for ii in T.vectorized(4):
            if T.likely(io * 4 + ii < n):
                B[io * 4 + ii] = A[io * 4 + ii] * T.float32(2.0) + T.float32(1.0)
