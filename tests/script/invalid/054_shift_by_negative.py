# expect-error: 6:12: shift by -1 is out of range for int32
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "int32")):
    A[0] = A[1] >> -1
