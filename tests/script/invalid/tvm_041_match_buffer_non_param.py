# expect-error: 6:9: parameter
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    x = T.int32()
    B = T.match_buffer(x, (16,), "float32")
    A[0] = B[0]
