# expect-error: 5:10: context
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    with A:
        A[0] = T.float32(1)
