# expect-error: 6:9: top of the T.prim_func
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in range(4):
        T.func_attr({"k": 1})
        A[i] = T.float32(1)
