# expect-error: 5:30: binds no value
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32")):
    with T.sblock("root") as x:
        A[0] = T.float32(1)
