# expect-error: 6:9: no_realize
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B", no_realize=True):
            T.where(i < 8)
            A[i] = T.float32(1)
