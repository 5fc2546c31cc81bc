# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(a: T.handle, b: T.handle):
    s0 = T.int32()
    eo = T.int32()
    A = T.match_buffer(a, (16, 16), strides=(s0, 1), elem_offset=eo, align=64, offset_factor=16)
    B = T.match_buffer(b, (16, 16), "float16", elem_offset=0, align=64, offset_factor=1)
    for i, j in T.grid(16, 16):
        B[i, j] = T.Cast("float16", A[i, j])
