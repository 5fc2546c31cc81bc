# from tvm.script import tirx as T
# One loop name for several loops: `iters` is the tuple of the loop variables.

@T.prim_func
def main(A: T.Buffer((8, 4), "float32"), B: T.Buffer((8, 4), "float32")):
    for iters in T.grid(8, 4):
        B[iters[0], iters[1]] = A[iters[0], iters[1]] + T.float32(1)
