# expect-error: 6:1: global_symbol "expf" is a C library function that compiled kernels call
# from tvm.script import tirx as T
# T.exp on float32 is a call to expf after LLVM's lowering: it called the kernel instead.

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    T.func_attr({"global_symbol": "expf"})
    A[0] = T.exp(A[1])
