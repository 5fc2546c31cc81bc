# expect-error: 7:12: -2147483648 // -1 does not fit in int32
# from tvm.script import tirx as T
# Folded silently to -2147483648, while the same division traps at run time.

@T.prim_func
def main(A: T.Buffer((8,), "int32")):
    A[0] = T.int32(-2147483648) // T.int32(-1)
