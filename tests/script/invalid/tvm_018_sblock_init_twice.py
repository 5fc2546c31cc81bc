# expect-error: 10:13: one T.init
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.S(16, i)
            with T.init():
                A[vi] = T.float32(0)
            with T.init():
                A[vi] = T.float32(0)
            A[vi] = A[vi] + T.float32(1)
