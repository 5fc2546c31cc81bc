# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16, 16), "float32", strides=(32, 1)), B: T.Buffer((16,), "int8", align=64, offset_factor=16), C: T.Buffer((8,), "float32", elem_offset=4), S: T.Buffer((4,), "float32", scope="shared")):
    for i in range(16):
        B[i] = T.Cast("int8", A[i, i])
    for i in range(8):
        C[i] = A[i, 0] + S[i % 4]
