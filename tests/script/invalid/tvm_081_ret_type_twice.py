# expect-error: 5:5: T.ret_type
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")) -> T.int32:
    T.ret_type(T.int32)
    T.ret(0)
