# from tvm.script import tirx as T
# `T.attr(T.int32(0), key, value)` is the node-less attribute scope, as `T.attr(0, ...)` and the
# dict form are: it prints as `T.attr(0, ...)` and reads back the same.

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    with T.attr(T.int32(0), "pragma_auto_unroll_max_step", 16):
        for i in T.unroll(4):
            A[i] = T.float32(1)
