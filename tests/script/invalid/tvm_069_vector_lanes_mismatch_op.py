# expect-error: 5:9: lanes
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    x = T.Broadcast(T.float32(1), 4) + T.Broadcast(T.float32(1), 8)
    A[0] = x[0]
