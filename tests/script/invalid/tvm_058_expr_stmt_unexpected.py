# expect-error: 5:5: not a statement
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    T.float32
    A[0] = T.float32(1)
