# from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle):
    A = T.Buffer(16, "float64", data=a)
    A[0] = T.float64(1)
