# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "int32"), C: T.Buffer((64, 8), "int32"), U: T.Buffer((64,), "uint32")):
    for i in range(64):
        C[i, 0] = T.bitwise_and(A[i], B[i])
        C[i, 1] = T.bitwise_or(A[i], B[i])
        C[i, 2] = T.bitwise_xor(A[i], B[i])
        C[i, 3] = T.bitwise_not(A[i])
        C[i, 4] = T.shift_left(A[i], 3)
        C[i, 5] = T.shift_right(A[i], 2)
        C[i, 6] = (A[i] & 255) | (B[i] << 8) ^ (A[i] >> 1)
        C[i, 7] = ~B[i]
        U[i] = T.shift_right(T.Cast("uint32", A[i]), T.uint32(28)) + T.uint32(1)
