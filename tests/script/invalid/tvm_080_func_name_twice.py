# expect-error: 5:5: T.func_name
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    T.func_name("other")
    A[0] = T.float32(1)
