# expect-error: 10:17: mismatched types
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32")):
    for i in range(4):
        with T.sblock("B"):
            vi = T.axis.S(4, i)
            T.reads()
            T.writes(A[vi * 4 : vi * 4 + 4, 0:16])
            S = T.match_buffer(A[vi * 4 : vi * 4 + 4, 0:16], (4, 16), "float16")
            S[0, 0] = T.float32(1)
