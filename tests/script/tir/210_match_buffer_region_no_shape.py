# T.match_buffer of a region without a shape takes the region's extents and its buffer's dtype.
# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 64), "float16")):
    with T.sblock():
        B = T.match_buffer(A[8:16, 32:64])
        B[0, 0] = T.float16(1)
