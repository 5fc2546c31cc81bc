# expect-error: 7:14: slice bounds of buffer A must be integers
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((4,), "float32")):
    B[0:4] = A[0:1e308]
