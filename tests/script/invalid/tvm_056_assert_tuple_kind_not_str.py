# expect-error: 5:5: must be a string
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    assert n > 0, (1, ["a"])
    A[0] = T.float32(1)
