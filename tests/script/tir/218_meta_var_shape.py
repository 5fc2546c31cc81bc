# from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle):
    n = T.meta_var(T.int64(128))
    A = T.match_buffer(a, (n,), "float32")
    A[0] = T.float32(1)
