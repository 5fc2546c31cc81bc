# expect-error: 7:5: float32xvscalex4 does not fit buffer B
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((16,), "float32x4")):
    B.vstore([0], A.vload([0], "float32xvscalex4"))
