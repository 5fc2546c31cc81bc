# expect-error: 6:5: B is already defined
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,), "float32")
    B = T.alloc_buffer((16,), "float32")
    B[0] = A[0]
    A[0] = B[0]
