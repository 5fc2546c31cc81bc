# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(8):
        A[i * 8:i * 8 + 4] = B[i * 8:i * 8 + 4] * T.Broadcast(T.float32(2.0), 4)
        A[i * 8 + 4:i * 8 + 4 + 4:2] = B[0:4:2]
        B[T.Ramp(i, i + 1, 2)] = A[0:2]
    A[60:64] = T.Broadcast(T.float32(0.0), 4)
