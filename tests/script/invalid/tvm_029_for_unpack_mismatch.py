# expect-error: 7:9: names
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in T.grid(16):
        A[i] = T.float32(1)
    for i, j in range(4):
        A[i] = T.float32(1)
