# expect-error: 5:5: exactly 2
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    assert n > 0, ("ValueError", ["a"], "b")
    A[0] = T.float32(1)
