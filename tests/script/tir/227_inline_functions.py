# from tvm.script import tirx as T
# @T.inline functions, as TVM v0.26 expands them at each call: at module level one reads the
# module's values; inside a body one sees the enclosing scopes (here the loop variable i, with its
# value at the call) and its parameters shadow the enclosing names.

SCALE = 2


@T.inline
def store_scaled(A, i, v):
    A[i] = v * SCALE


@T.prim_func
def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
    for i in range(16):

        @T.inline()
        def copy_at(dst, src):
            dst[i] = src[i]

        copy_at(B, A)
        store_scaled(A, i, B[i])
