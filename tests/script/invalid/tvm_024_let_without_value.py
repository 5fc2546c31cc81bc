# expect-error: 5:5: needs a value
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    x: T.let[T.int32]
    A[0] = T.float32(1)
