# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(private=True)
def add_bias(A: T.Buffer((32,), "float32"), bias: T.float32, B: T.Buffer((32,), "float32")):
    for i in range(32):
        B[i] = A[i] + bias
