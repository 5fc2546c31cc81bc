# expect-error: 7:40: lanes must be a constant or T.vscale() * k
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    A[0:4] = T.Broadcast(T.float32(0), T.vscale() + 4)
