# expect-error: 6:9: more than one unknown axis
# from tvm.script import tirx as T
@T.prim_func
def main():
    A = T.alloc_buffer((8, 4), "float16", scope="local")
    B = A.rearrange("(a b) c -> a c b")
    B[0, 0, 0] = T.float16(0)
