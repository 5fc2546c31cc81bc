# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8, 16), "int32"), B: T.Buffer((8, 16), "int32")):
    for i in range(8):
        X = T.alloc_buffer((16,), "int32")
        for j in range(16):
            X[j] = A[i, j] * 3 + i
        Y = T.alloc_buffer((16,), "int32")
        for j in range(16):
            Y[j] = X[15 - j] - X[j]
        Z = T.alloc_buffer((16,), "int32")
        for j in range(16):
            Z[j] = Y[j] * Y[j] + 1
        for j in range(16):
            B[i, j] = Z[j] + Y[j]
