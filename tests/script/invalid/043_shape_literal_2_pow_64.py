# expect-error: 6:23: does not fit in 64 bits
# from tvm.script import tirx as T
# 2**64 was silently read as 0.

@T.prim_func
def main(A: T.Buffer((2**64,), "float32")):
    A[0] = T.float32(1)
