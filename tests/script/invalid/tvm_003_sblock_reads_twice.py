# expect-error: 9:13: T.reads is given twice
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.S(16, i)
            T.reads(A[vi])
            T.reads(A[vi])
            B[vi] = A[vi]
