# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((4,), "int8"), B: T.Buffer((4,), "uint16"), C: T.Buffer((4,), "int64"), D: T.Buffer((4,), "float64"), E: T.Buffer((4,), "float32"), F: T.Buffer((4,), "bool"), G: T.Buffer((4,), "float16")):
    A[0] = T.int8(-128)
    A[1] = T.int8(127)
    B[0] = T.uint16(65535)
    C[0] = T.int64(9223372036854775807)
    C[1] = T.int64(-1)
    D[0] = T.float64(0.10000000000000001)
    D[1] = T.float64(1.0000000000000001e-05)
    D[2] = T.float64(1.7976931348623157e+308)
    E[0] = T.float32(0.5)
    E[1] = T.float32(-0.33333333333333331)
    E[2] = T.float32(340282346638528859811704183484516925440.0)
    E[3] = T.float32(9.9999999999999995e-07)
    F[0] = T.bool(True)
    F[1] = T.bool(False)
    G[0] = T.float16(65504.0)
    G[1] = T.float16(0.0)
