# expect-error: 7:56: the vscale factor must be between 2 and 32767
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((64,), "int32")):
    A[T.Ramp(0, 1, T.vscale() * 40000)] = T.Ramp(0, 1, T.vscale() * 40000)
