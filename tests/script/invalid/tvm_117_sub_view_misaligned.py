# expect-error: 6:9: multiples of the inner iter block 4
# from tvm.script import tirx as T
@T.prim_func
def main():
    A = T.alloc_buffer((8, 16), "float16", scope="local", layout=T.TileLayout(T.S[(2, 4, 16) : (1024, 64, 1)]))
    B = A.sub[2:6]
    B[0, 0] = T.float16(0)
