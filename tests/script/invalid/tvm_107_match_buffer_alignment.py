# expect-error: 7:13: align=128
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32")):
    with T.sblock("B"):
        T.reads(A[0:16])
        B = T.match_buffer(A[0:16], (16,), "float32", align=128)
        T.writes(A[0:16])
        B[0] = T.float32(1)
