# expect-error: 4:13: T.Optional
# from tvm.script import tirx as T
@T.prim_func
def main(n: T.Optional[T.int32], A: T.Buffer((16,), "float32")):
    A[0] = T.float32(1)
