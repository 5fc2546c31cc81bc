# from tvm.script import tirx as T
# T.bind(value, var=x) binds a variable declared by x = T.int32() for the rest of the block.

@T.prim_func
def bound(A: T.Buffer((4,), "int32")):
    x = T.int32()
    T.bind(A[0] * 2, var=x)
    A[1] = x
