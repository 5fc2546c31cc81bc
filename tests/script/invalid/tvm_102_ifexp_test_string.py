# expect-error: 5:9: bool
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    x = A[0] if "s" else A[1]
    A[2] = x
