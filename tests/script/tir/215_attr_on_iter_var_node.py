# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    nn = T.int32()
    with T.attr(T.iter_var(nn, None, "DataPar", ""), "pragma_key", 1):
        A[0] = T.float32(1)
