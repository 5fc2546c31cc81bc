# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    for i in range(16):
        with T.sblock("extern"):
            vi = T.axis.spatial(16, i)
            T.reads()
            T.writes()
            T.evaluate(T.call_extern("void", "touch", A.data, vi))
    with T.sblock("whole"):
        T.reads(A[0:16])
        T.writes(B[0:16])
        for i in range(16):
            B[i] = A[15 - i]
