# expect-error: 5:16: bool
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    T.evaluate(A[0] and A[1])
