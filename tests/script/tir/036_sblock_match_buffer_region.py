# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    # with T.sblock("root"):
    for io, jo in T.grid(4, 4):
        with T.sblock("tile"):
            vio, vjo = T.axis.remap("SS", [io, jo])
            T.reads(A[vio * 16:vio * 16 + 16, vjo * 16:vjo * 16 + 16])
            T.writes(B[vio * 16:vio * 16 + 16, vjo * 16:vjo * 16 + 16])
            A_tile = T.match_buffer(A[vio * 16:vio * 16 + 16, vjo * 16:vjo * 16 + 16], (16, 16), strides=("A_s0", "A_s1"), offset_factor=1)
            B_tile = T.match_buffer(B[vio * 16:vio * 16 + 16, vjo * 16:vjo * 16 + 16], (16, 16), offset_factor=1)
            for i, j in T.grid(16, 16):
                B_tile[i, j] = A_tile[i, j] * T.float32(2.0)
