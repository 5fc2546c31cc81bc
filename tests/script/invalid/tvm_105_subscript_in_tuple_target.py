# expect-error: 5:8: cannot assign
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    x, A[0] = T.float32(1), T.float32(2)
    A[1] = x
