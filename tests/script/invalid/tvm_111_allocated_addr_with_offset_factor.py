# expect-error: 5:9: allocated_addr
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,), "float32", scope="tmem", offset_factor=2, allocated_addr=[0])
    A[0] = B[0]
