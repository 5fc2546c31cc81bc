# expect-error: 6:5: 'transpose' is not a tile primitive kiln reads
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.tile.transpose(B, A)
