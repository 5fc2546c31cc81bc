# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    for i, j in T.grid(16, 16):
        with T.sblock("scan"):
            vi = T.axis.spatial(16, i)
            vj = T.axis.scan(16, j)
            T.reads(A[vi, 0:vj + 1], B[vi, vj - 1])
            T.writes(B[vi, vj])
            B[vi, vj] = T.if_then_else(vj == 0, A[vi, vj], B[vi, vj - 1] + A[vi, vj])
    for i in range(16):
        with T.sblock("opaque"):
            vi = T.axis.opaque(16, i)
            T.reads(B[vi, 0:16])
            T.writes(C[vi])
            C[vi] = B[vi, 15]
    for i, k in T.grid(16, 16):
        with T.sblock("red"):
            vi = T.axis.spatial(16, i)
            vk = T.axis.reduce(16, k)
            T.reads(A[vi, vk])
            T.writes(C[vi])
            with T.init():
                C[vi] = T.float32(0.0)
            C[vi] = C[vi] + A[vi, vk]
