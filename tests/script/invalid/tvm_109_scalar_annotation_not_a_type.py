# expect-error: 5:8: expected a dtype
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    x: 5 = T.int32(1)
    A[0] = T.float32(1)
