# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((8,), "float32"), I8: T.Buffer((8,), "int8"), I16: T.Buffer((8,), "int16"), I64: T.Buffer((8,), "int64"), U8: T.Buffer((8,), "uint8"), U16: T.Buffer((8,), "uint16"), U32: T.Buffer((8,), "uint32"), U64: T.Buffer((8,), "uint64"), F16: T.Buffer((8,), "float16"), BF16: T.Buffer((8,), "bfloat16"), F64: T.Buffer((8,), "float64"), BL: T.Buffer((8,), "bool")):
    for i in range(8):
        I8[i] = T.Cast("int8", A[i])
        I16[i] = T.Cast("int16", A[i])
        I64[i] = T.Cast("int64", A[i])
        U8[i] = T.Cast("uint8", A[i])
        U16[i] = T.Cast("uint16", I16[i])
        U32[i] = T.Cast("uint32", I64[i])
        U64[i] = T.Cast("uint64", U32[i])
        F16[i] = T.Cast("float16", A[i])
        BF16[i] = T.Cast("bfloat16", F16[i])
        F64[i] = T.Cast("float64", BF16[i]) + T.Cast("float64", I8[i])
        BL[i] = T.Cast("bool", U8[i])
        A[i] = T.Cast("float32", BL[i]) + T.Cast("float32", U64[i])
