# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    tmp = T.alloc_buffer((64,))
    acc = T.alloc_local((1,), "float32")
    tile = T.alloc_shared((16,), "float32")
    idx = T.alloc_buffer((4,), "int32", scope="local")
    warp = T.alloc_buffer((32,), "float16", scope="warp")
    for i in range(64):
        tmp[i] = A[i] * T.float32(3.0)
    acc[0] = T.float32(0.0)
    for i in range(64):
        acc[0] = acc[0] + tmp[i]
    for i in range(16):
        tile[i] = acc[0]
    idx[0] = 0
    warp[0] = T.Cast("float16", tile[0])
    for i in range(64):
        B[i] = tile[i % 16] + T.Cast("float32", warp[0]) + T.Cast("float32", idx[0])
