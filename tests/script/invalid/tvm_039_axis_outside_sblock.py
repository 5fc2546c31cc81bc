# expect-error: 6:14: inside a T.sblock
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in range(16):
        vi = T.axis.S(16, i)
        A[vi] = T.float32(1)
