# expect-error: 6:71: must be one 'P' or 'F' per dimension
# from tvm.script import tirx as T

@T.prim_func
def main():
    A = T.alloc_buffer((128, 64), "float32", scope="trn.sbuf", layout="PX")
    A[0, 0] = T.float32(0)
