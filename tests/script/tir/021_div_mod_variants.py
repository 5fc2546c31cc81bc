# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((32,), "int32"), B: T.Buffer((32,), "int32"), C: T.Buffer((32, 8), "int32"), F: T.Buffer((32,), "float32")):
    for i in range(32):
        C[i, 0] = A[i] // B[i]
        C[i, 1] = A[i] % B[i]
        C[i, 2] = T.floordiv(A[i], B[i])
        C[i, 3] = T.floormod(A[i], B[i])
        C[i, 4] = T.truncdiv(A[i], B[i])
        C[i, 5] = T.truncmod(A[i], B[i])
        C[i, 6] = T.Div(A[i], B[i])
        C[i, 7] = T.Mod(A[i], 7) - A[i] * -3 + (-A[i])
        F[i] = T.Cast("float32", A[i]) / T.Cast("float32", B[i])
