# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((30,), "float32"), B: T.Buffer((30,), "float32")):
    # with T.sblock("root"):
    for i_0, i_1 in T.grid(4, 8):
        with T.sblock("B"):
            vi = T.axis.spatial(30, i_0 * 8 + i_1)
            T.where(i_0 * 8 + i_1 < 30)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] + T.float32(1.0)
