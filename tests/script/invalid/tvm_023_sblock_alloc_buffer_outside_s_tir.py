# expect-error: 5:9: sblock_alloc_buffer
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    B = T.sblock_alloc_buffer((16,), "float32")
    A[0] = B[0]
