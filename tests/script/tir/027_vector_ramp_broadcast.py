# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), I: T.Buffer((16,), "int32")):
    for i in range(16):
        B[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)] * T.Broadcast(T.float32(2.0), 4)
    B[0:8] = A[0:8] + T.Broadcast(T.float32(1.0), 8)
    I[T.Ramp(0, 2, 8)] = T.Ramp(0, 3, 8)
    I[T.Ramp(1, 2, 8)] = T.Broadcast(7, 8) + T.Ramp(0, 1, 8)
    A[T.Ramp(0, 16, 4)] = T.Cast("float32x4", I[T.Ramp(0, 4, 4)])
