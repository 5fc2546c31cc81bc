# expect-error: 6:1: global_symbol "malloc" is a C library function that compiled kernels call
# from tvm.script import tirx as T
# The LLVM backend resolved the kernel's own calls to malloc (a failed check's message) to the
# kernel itself: the kernel was called as malloc and crashed.
@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    T.func_attr({"global_symbol": "malloc"})
    A[0] = T.float32(1)
