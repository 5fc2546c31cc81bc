# expect-error: 8:13: T.writes takes buffer regions
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.S(16, i)
            T.writes(vi)
            A[vi] = T.float32(1)
