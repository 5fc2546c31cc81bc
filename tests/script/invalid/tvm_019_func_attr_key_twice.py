# expect-error: 6:5: twice
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    T.func_attr({"k": 1})
    T.func_attr({"k": 2})
    A[0] = T.float32(1)
