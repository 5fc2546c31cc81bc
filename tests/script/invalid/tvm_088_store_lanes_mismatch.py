# expect-error: 5:5: mismatched types
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    A[0] = T.Broadcast(T.float32(1), 4)
