# expect-error: 7:9: defined more than once
# from tvm.script import tirx as T
# Without check_well_formed=False a second binding of one variable is rejected (TIR is SSA).

@T.prim_func
def rebind(A: T.Buffer((2,), "int32")):
    x = T.int32()
    T.bind(A[0] + 1, var=x)
    A[0] = x
    T.bind(A[1] * 2, var=x)
    A[1] = x
