# expect-error: 5:8: T.let[T.handle]
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    p: T.handle = A.data
    A[0] = T.float32(1)
