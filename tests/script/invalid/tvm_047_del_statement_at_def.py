# expect-error: 4:1: Delete
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    x = T.float32(1)
    del x
