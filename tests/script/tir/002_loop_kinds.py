# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16, 64), "float32"), B: T.Buffer((16, 64), "float32")):
    for i in T.parallel(16):
        for jo in T.unroll(4):
            for ji in T.vectorized(16):
                B[i, jo * 16 + ji] = A[i, jo * 16 + ji] * T.float32(2.0)
    for i in T.parallel(2, 14):
        for j in T.unroll(0, 64, step=8):
            B[i, j] = T.float32(1.0)
