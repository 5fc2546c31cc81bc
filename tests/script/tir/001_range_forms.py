# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        B[i] = A[i]
    for i in range(8, 56):
        B[i] = B[i] + A[i - 8]
    for i in range(0, 64, 4):
        B[i] = T.float32(0.0)
