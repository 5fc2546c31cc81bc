# expect-error: 7:22: loop variables only
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    for i in range(16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, n])
            A[vi] = T.float32(1)
