# expect-error: 10:1: function 'f' is defined twice (first on line
# from tvm.script import tirx as T
# The last definition silently won, and `kiln fmt -i` deleted the first from the file.

@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    A[0] = T.float32(1)

@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    A[0] = T.float32(2)
