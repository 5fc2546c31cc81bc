# from tvm.script import tirx as T
# T.grid takes (min, extent) pairs besides extents, and T.prim_func(persistent=True) marks a
# persistent kernel (the tirx.persistent_kernel attribute; kiln's lowering refuses it).

@T.prim_func(persistent=True)
def main(A: T.Buffer((16, 16), "float32")):
    for i, j in T.grid((2, 12), 16):
        A[i, j] = T.float32(0)
