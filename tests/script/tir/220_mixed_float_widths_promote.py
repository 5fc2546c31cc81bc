# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float16")):
    A[0] = T.max(A[1], T.float16(-65504))
    A[2] = T.min(A[1], B[0])
    A[3] = T.if_then_else(A[1] > T.float32(0), A[1], B[0])
    A[4] = A[1] + B[0]
