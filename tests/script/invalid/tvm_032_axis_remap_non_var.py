# expect-error: 7:18: loop variables only
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.remap("S", [i + 1])
            A[vi] = T.float32(1)
