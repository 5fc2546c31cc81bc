# Buffer layouts (TVM v0.26 Buffer.layout): a TIRx buffer without layout= has the default
# row-major TileLayout, layout=None is spelled out, explicit T.TileLayout / T.ComposeLayout layouts
# with strides bound to hardware axes, replicas and offsets.
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64, 128), "float16", layout=None), B: T.Buffer((8, 4), "float32", layout=T.TileLayout(T.S[(8, 4) : (1, 8)]))):
    T.device_entry()
    C = T.alloc_buffer((32, 2), "float32", scope="local", layout=T.TileLayout(T.S[(32, 2) : (1 @ Axis.laneid, 2)] + 3))
    D = T.alloc_buffer((8,), "float32", scope="local", layout=T.TileLayout(T.S[8 : 1 @ Axis.warpid] + T.R[4 : 1 @ Axis.laneid] + 2 @ Axis.laneid + 1))
    S = T.alloc_buffer((8, 64), "float16", scope="shared", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(8, 64) : (64, 1)]), swizzle_inner=False))
    E = T.alloc_buffer((16,), "float32", scope="local", layout=T.TileLayout.from_iters(offset={"laneid": 4}))
    F = T.decl_buffer((8192,), "float16", data=A.data, layout=None)
    G = T.alloc_buffer((4, 4), "float32", layout=T.TileLayout(T.S[4, 4]))
    C[0, 0] = B[1, 2]
    D[0] = C[0, 1]
    S[0, 0] = F[0]
    E[0] = G[0, 0]
