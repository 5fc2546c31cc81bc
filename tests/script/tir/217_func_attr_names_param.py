# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    T.func_attr({"tir.vars": [n], "k": [1, 2]})
    A[0] = T.float32(1)
