# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(mask: T.Buffer((64,), "bool"), A: T.Buffer((64,), "uint8"), B: T.Buffer((64,), "uint8"), out: T.Buffer((64,), "uint16")):
    for i in range(64):
        out[i] = T.if_then_else(mask[i], T.Cast("uint16", A[i]) + T.Cast("uint16", B[i]), T.Cast("uint16", A[i]) * T.uint16(2))
        mask[i] = not mask[i] and A[i] > T.uint8(127)
