# An `if` on an integer expression (TVM's parser takes any PrimExpr: nonzero is true), e.g. a
# bound flag or a uint32 intrinsic result.
# from tvm.script import tirx as T

@T.prim_func
def main(B: T.Buffer((4,), "int32"), n: T.int32):
    b = T.bind(n % 2)
    if b:
        B[0] = 1
    else:
        B[0] = 2
    if T.Cast("uint32", n):
        B[1] = 3
