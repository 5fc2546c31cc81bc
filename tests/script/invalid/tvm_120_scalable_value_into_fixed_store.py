# expect-error: 7:5: can't mix scalable and fixed-length vectors in a store: stored value is float32xvscalex4 but buffer A holds float32x4 at these indices
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    A[T.ramp(0, 1, 4)] = B[T.ramp(0, 1, 4 * T.vscale())]
