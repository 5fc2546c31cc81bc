# A dtype without a width is 32 bits wide, as in TVM: "float" is float32, "int" int32, "uint" uint32.
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((16,), "float"), B: T.Buffer((16,), "int"), C: T.Buffer((16,), "uint")):
    for i in range(16):
        A[i] = T.Cast("float", B[i]) + T.Cast("float32", C[i])
