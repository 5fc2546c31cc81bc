# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((64,), "float32")):
    A_flat = T.decl_buffer((64,), data=A.data)
    for i in range(64):
        B[i] = A_flat[i]
    with T.decl_buffer((4, 16), "float32", data=B.data) as B_2d:
        for i, j in T.grid(4, 16):
            B_2d[i, j] = B_2d[i, j] + T.float32(1.0)
    C = T.alloc_buffer((16,), "int8")
    C_bytes = T.decl_buffer((4,), "int32", data=C.data)
    C_bytes[0] = 7
    B[0] = T.Cast("float32", C[1])
