# from tvm.script import tirx as T
# With check_well_formed=False TVM's parser accepts a variable bound more than once (its
# well-formed check, which enforces SSA, is skipped); the second binding prints as T.bind.

@T.prim_func(check_well_formed=False)
def rebind(A: T.Buffer((2,), "int32")):
    x = T.int32()
    T.bind(A[0] + 1, var=x)
    A[0] = x
    T.bind(A[1] * 2, var=x)
    A[1] = x
