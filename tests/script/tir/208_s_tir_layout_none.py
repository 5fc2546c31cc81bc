# In an s_tir function buffers have no layout by default, so layout=None is the default there
# and prints as nothing; an explicit layout is still kept.
# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32", layout=None)):
    B = T.alloc_buffer((16,), layout=T.TileLayout(T.S[16 : 1]))
    for i in range(16):
        with T.sblock("copy"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi]
