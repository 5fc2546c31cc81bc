# expect-error: 7:9: parent buffer has layout=None
# from tvm.script import tirx as T
@T.prim_func
def main():
    T.device_entry()
    A = T.alloc_buffer((4,), "float32", scope="local", layout=None)
    B = A.local(layout=T.TileLayout(T.S[4]))
    B[0] = T.float32(1)
