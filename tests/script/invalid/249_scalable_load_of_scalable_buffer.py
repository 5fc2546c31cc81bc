# expect-error: 7:16: index dtype int32xvscalex4 and buffer A's dtype float32xvscalex4 can't both be scalable
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((128,), "float32xvscalex4"), B: T.Buffer((128,), "float32")):
    T.evaluate(A[T.ramp(0, 1, 4 * T.vscale())])
