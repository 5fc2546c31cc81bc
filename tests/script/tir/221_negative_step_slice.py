# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((32,), "int32"), B: T.Buffer((32,), "int32")):
    for i in range(8):
        B[i * 4:i * 4 + -4:-1] = T.Shuffle([A[i * 4:i * 4 + 4]], [3, 2, 1, 0])
