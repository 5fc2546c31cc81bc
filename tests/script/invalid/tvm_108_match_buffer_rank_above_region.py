# expect-error: 7:13: dimensions but its source region has 1
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32")):
    with T.sblock("B"):
        T.reads(A[0:16])
        B = T.match_buffer(A[0:16], (4, 4), "float32")
        T.writes(A[0:16])
        B[0, 0] = T.float32(1)
