# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16,), "float64"), B: T.Buffer((16,), "float16"), C: T.Buffer((16,), "float64"), D: T.Buffer((16,), "float16")):
    for i in range(16):
        C[i] = T.sqrt(A[i]) + T.exp(A[i]) * T.float64(0.5) - T.log(A[i] + T.float64(1.0))
        D[i] = T.tanh(B[i]) + T.sigmoid(B[i]) * T.float16(0.25) + T.fabs(B[i])
