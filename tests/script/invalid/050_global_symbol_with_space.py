# expect-error: 6:1: global_symbol "a b" is not a valid symbol name
# from tvm.script import tirx as T
# A space in the symbol surfaced the assembler's errors from the C backend.

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    T.func_attr({"global_symbol": "a b"})
    A[0] = T.float32(1)
