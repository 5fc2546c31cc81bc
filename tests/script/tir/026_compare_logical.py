# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((32,), "int32"), B: T.Buffer((32,), "int32"), M: T.Buffer((32, 9), "bool")):
    for i in range(32):
        M[i, 0] = A[i] == B[i]
        M[i, 1] = A[i] != B[i]
        M[i, 2] = A[i] < B[i]
        M[i, 3] = A[i] <= B[i]
        M[i, 4] = A[i] > B[i]
        M[i, 5] = A[i] >= B[i]
        M[i, 6] = M[i, 0] and M[i, 2] or not M[i, 4]
        M[i, 7] = T.Not(M[i, 1]) or T.And(M[i, 3], M[i, 5])
        M[i, 8] = T.Or(A[i] == 0, not (B[i] == 0))
