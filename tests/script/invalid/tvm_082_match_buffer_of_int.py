# expect-error: 5:9: matches a T.handle parameter
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    B = T.match_buffer(5, (16,), "float32")
    A[0] = T.float32(1)
