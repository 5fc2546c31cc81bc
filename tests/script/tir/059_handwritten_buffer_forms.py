# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(a: T.handle, B: T.Buffer([16, 16], "float32"), C: T.Buffer((16, 16))):
    A = T.match_buffer(a, [16, 16], elem_offset=0, align=64, offset_factor=1)
    for i, j in T.grid(16, 16):
        C[i, j] = A[i, j] + B[i, j] + 1.0
