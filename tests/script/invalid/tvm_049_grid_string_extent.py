# expect-error: 5:14: extent
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in T.grid("a"):
        A[0] = T.float32(1)
