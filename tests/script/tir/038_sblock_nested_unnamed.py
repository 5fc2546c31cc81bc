# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    # with T.sblock("root"):
    for i in range(8):
        with T.sblock("outer"):
            vi = T.axis.spatial(8, i)
            T.reads(A[vi, 0:8])
            T.writes(B[vi, 0:8])
            tmp = T.sblock_alloc_buffer((8,))
            for j in range(8):
                with T.sblock(""):
                    vj = T.axis.spatial(8, j)
                    T.reads(A[vi, vj])
                    T.writes(tmp[vj])
                    tmp[vj] = A[vi, vj] * T.float32(3.0)
            for j in range(8):
                with T.sblock("inner2"):
                    vj = T.axis.spatial(8, j)
                    T.reads(tmp[vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = tmp[vj]
