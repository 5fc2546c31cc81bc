# expect-error: 8:19: dimensional
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((8, 8), "float32")):
    for i in range(8):
        A[i, i] = A[i, i, 0]
