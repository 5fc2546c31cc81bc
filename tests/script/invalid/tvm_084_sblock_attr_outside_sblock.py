# expect-error: 5:5: sblock_attr
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32")):
    T.sblock_attr({"k": 1})
    A[0] = T.float32(1)
