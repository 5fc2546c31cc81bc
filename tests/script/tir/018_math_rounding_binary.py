# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32"), B: T.Buffer((32, 16), "float32"), M: T.Buffer((32, 3), "bool")):
    for i in range(32):
        B[i, 0] = T.fabs(A[i])
        B[i, 1] = T.floor(A[i])
        B[i, 2] = T.ceil(A[i])
        B[i, 3] = T.round(A[i])
        B[i, 4] = T.nearbyint(A[i])
        B[i, 5] = T.trunc(A[i])
        B[i, 6] = T.pow(A[i], C[i])
        B[i, 7] = T.fmod(A[i], C[i])
        B[i, 8] = T.atan2(A[i], C[i])
        B[i, 9] = T.hypot(A[i], C[i])
        B[i, 10] = T.copysign(A[i], C[i])
        B[i, 11] = T.nextafter(A[i], C[i])
        B[i, 12] = T.ldexp(A[i], C[i])
        B[i, 13] = T.abs(A[i])
        B[i, 14] = T.min(A[i], C[i])
        B[i, 15] = T.max(A[i], C[i])
        M[i, 0] = T.isnan(A[i])
        M[i, 1] = T.isinf(A[i])
        M[i, 2] = T.isfinite(A[i])
