# expect-error: 7:14: T.warp_id only supports 1D extents
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    T.device_entry()
    w0, w1 = T.warp_id([2, 2])
    A[w0] = w1
