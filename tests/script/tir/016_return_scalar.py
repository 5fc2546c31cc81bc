# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((8,), "int32"), k: T.int32) -> T.int32:
    if k < 0:
        return -1
    for i in range(8):
        if A[i] == k:
            return i
    return 8
