# A.view(*shape, layout=...) re-declares A's storage (T.decl_buffer over A.data, with A's scope):
# the given layout, or else A's own (a -1 extent is inferred from A's size).
# from tvm.script import tirx as T

@T.prim_func
def main(inp: T.Buffer((64,), "float32")):
    T.device_entry()
    A = T.alloc_buffer((2,), "float16", scope="local", layout=T.TileLayout(T.S[2 : 1]))
    B = A.view(32, 2, layout=T.TileLayout(T.S[(32, 2) : (1 @ Axis.laneid, 1)]))
    S = T.alloc_buffer((64, 8), "float32", scope="shared")
    V = S.view(8, -1)
    W = inp.view(8, 8)
    B[0, 0] = T.float16(V[0, 1] + W[1, 0])
