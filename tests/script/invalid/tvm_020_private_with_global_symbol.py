# expect-error: 5:5: global_symbol
# from tvm.script import tirx as T
@T.prim_func(private=True)
def main(A: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main"})
    A[0] = T.float32(1)
