# expect-error: 7:12: shift by 40 is out of range for int32 (0 to 31)
# from tvm.script import tirx as T
# A shift by >= the width is undefined in C and LLVM (it built and gave any value).

@T.prim_func
def main(A: T.Buffer((8,), "int32")):
    A[0] = A[1] << 40
