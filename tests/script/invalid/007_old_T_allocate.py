# expect-error: 7:11: alloc_buffer
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    buf = T.allocate([8], "float32", "global")
    A[0] = T.float32(0.0)
