# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((32,), "int32"), B: T.Buffer((32,), "int32")):
    x = T.int32()
    y = T.int32()
    z = T.int32()
    for i in range(32):
        B[i] = T.Let(x * x + x, where={x: A[i] + 1})
        B[i] = B[i] + T.Let(T.Let(z + y, where={y: z * 2}), where={z: i})
