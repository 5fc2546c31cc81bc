# expect-error: 7:14: range
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    for i in range(0, 8, 1, 2):
        A[i] = T.float32(0.0)
