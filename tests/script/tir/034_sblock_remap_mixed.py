# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((8, 16, 4, 2), "float32"), B: T.Buffer((8, 2), "float32")):
    # with T.sblock("root"):
    for i0, i1, i2, i3 in T.grid(8, 16, 4, 2):
        with T.sblock("update"):
            v0, v1, v2 = T.axis.remap("SRR", [i0, i1, i2])
            v3 = T.axis.spatial(2, i3)
            T.reads(A[v0, v1, v2, v3])
            T.writes(B[v0, v3])
            with T.init():
                B[v0, v3] = T.float32(0.0)
            B[v0, v3] = B[v0, v3] + A[v0, v1, v2, v3]
    for i0, i1 in T.grid(4, 2):
        with T.sblock("shifted"):
            v0 = T.axis.spatial(8, i0 + 4)
            v1, = T.axis.remap("S", [i1])
            T.reads(B[v0, v1])
            T.writes(B[v0, v1])
            B[v0, v1] = B[v0, v1] * T.float32(2.0)
