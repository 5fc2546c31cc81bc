# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "int32")):
    for i in range(64):
        if A[i] < T.float32(-1.0):
            B[i] = -1
        elif A[i] < T.float32(0.0):
            B[i] = 0
        elif A[i] < T.float32(1.0):
            B[i] = 1
        else:
            B[i] = 2
        if i == 0:
            B[i] = 100
        if i > 60:
            if i > 62:
                B[i] = 63
            else:
                B[i] = 61
