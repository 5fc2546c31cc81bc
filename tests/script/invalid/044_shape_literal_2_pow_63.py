# expect-error: 6:23: does not fit in 64 bits
# from tvm.script import tirx as T
# 2**63 was read as -2**63, printed as a negative literal that did not parse back.

@T.prim_func
def main(A: T.Buffer((2**63,), "float32")):
    A[0] = T.float32(1)
