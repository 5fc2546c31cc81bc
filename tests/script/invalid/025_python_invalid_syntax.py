# expect-error: 8:22: syntax
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    for i in range(8):
        A[i] = A[i] +* T.float32(2.0)
