# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), n: T.int32):
    assert n <= 32, ("ValueError", ["n is too large"])
    lim: T.let[T.int32] = T.min(n, 32)
    with T.attr({"compute_scope": "main_compute_"}):
        for i in range(lim):
            B[i] = A[i]
