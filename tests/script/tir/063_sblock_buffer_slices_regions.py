# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 16, 16), "float32"), B: T.Buffer((4, 16), "float32")):
    # with T.sblock("root"):
    for b, i in T.grid(4, 16):
        with T.sblock("rowsum"):
            vb, vi = T.axis.remap("SS", [b, i])
            T.reads(A[vb, vi, 0:16])
            T.writes(B[vb, vi])
            B[vb, vi] = T.float32(0.0)
            for k in range(16):
                B[vb, vi] = B[vb, vi] + A[vb, vi, k]
    for b in range(4):
        with T.sblock("norm"):
            vb = T.axis.spatial(4, b)
            T.reads(B[vb, 0:16], A[vb, 0:16, 0])
            T.writes(B[vb, 0:16])
            for i in range(16):
                B[vb, i] = B[vb, i] / (A[vb, i, 0] + T.float32(1.0))
