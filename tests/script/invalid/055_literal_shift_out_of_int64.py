# expect-error: 7:20: the constant 1 << 70 does not fit in 64 bits
# from tvm.script import tirx as T
# Was reported as "division by zero in a constant expression".

@T.prim_func
def main(A: T.Buffer((8,), "int64")):
    A[0] = T.int64(1 << 70)
