# expect-error: 6:1: global_symbol "" is empty
# from tvm.script import tirx as T
# An empty symbol built a library of 0 kernels.

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    T.func_attr({"global_symbol": ""})
    A[0] = T.float32(1)
