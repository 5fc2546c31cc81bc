# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32, 24), "float32")):
    for i in range(32):
        x: T.let[T.float32] = A[i]
        B[i, 0] = T.exp(x)
        B[i, 1] = T.exp2(x)
        B[i, 2] = T.exp10(x)
        B[i, 3] = T.log(x)
        B[i, 4] = T.log2(x)
        B[i, 5] = T.log10(x)
        B[i, 6] = T.log1p(x)
        B[i, 7] = T.sqrt(x)
        B[i, 8] = T.rsqrt(x)
        B[i, 9] = T.sin(x)
        B[i, 10] = T.cos(x)
        B[i, 11] = T.tan(x)
        B[i, 12] = T.sinh(x)
        B[i, 13] = T.cosh(x)
        B[i, 14] = T.tanh(x)
        B[i, 15] = T.asin(x)
        B[i, 16] = T.acos(x)
        B[i, 17] = T.atan(x)
        B[i, 18] = T.asinh(x)
        B[i, 19] = T.acosh(x)
        B[i, 20] = T.atanh(x)
        B[i, 21] = T.sigmoid(x)
        B[i, 22] = T.erf(x)
        B[i, 23] = T.expm1(x)
