# from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "int32")
    B = T.match_buffer(b, (n,), "int32")
    for i in range(n):
        if T.likely(i >= 2):
            if T.likely(i < n - 2):
                B[i] = A[i - 2] + A[i + 2] - A[i]
            else:
                B[i] = A[i] * 3
        else:
            B[i] = A[i] * 5
