# from tvm.script import tirx as T

# A parallel loop whose body uses variables named like the locals the C backend declares around an
# outlined loop body (the extent n, the closure c, the loop counter it, rc): the backend must not let
# its own names shadow them.
@T.prim_func
def main(a: T.handle, b: T.handle, c: T.float32):
    n = T.int64()
    A = T.match_buffer(a, (n, 4))
    B = T.match_buffer(b, (n, 4))
    for it in T.parallel(n):
        for rc in range(4):
            B[it, rc] = A[it, rc] * c + T.Cast("float32", it)
