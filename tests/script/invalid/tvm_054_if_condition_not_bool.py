# expect-error: 5:8: boolean
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    if "yes":
        A[0] = T.float32(1)
