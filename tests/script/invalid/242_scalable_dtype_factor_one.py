# expect-error: 7:26: unknown dtype "float32xvscalex1"
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    A[0] = T.reinterpret("float32xvscalex1", T.int32(0))
