# from tvm.script import tirx as T
# int64's extremes as TVM prints them: -9223372036854775808 is the negation of a literal one past
# int64's maximum, which Python (and kiln) reads as int64's minimum.

@T.prim_func
def main(A: T.Buffer((2,), "int64")):
    A[0] = T.int64(-9223372036854775808)
    A[1] = T.int64(9223372036854775807)
