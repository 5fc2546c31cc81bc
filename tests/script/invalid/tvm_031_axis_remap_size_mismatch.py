# expect-error: 7:22: has size 2
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i])
            A[vi] = T.float32(1)
