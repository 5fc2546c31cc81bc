# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((4, 8), "float32")):
    a_reg = T.alloc_local((1,))
    T.tile.copy(a_reg[0:1], A[5:6])
    T.tile.maximum(a_reg[0:1], a_reg[0:1], B[1:2, 2:3])
    T.tile.copy(B[1, 0:8], A[0:8])
