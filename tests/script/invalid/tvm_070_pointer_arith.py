# expect-error: 5:16: as handle
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    T.evaluate(A.data + 1)
