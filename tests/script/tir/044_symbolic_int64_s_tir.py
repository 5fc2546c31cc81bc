# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(var_A: T.handle, var_B: T.handle):
    T.func_attr({"tirx.noalias": True})
    n = T.int64()
    A = T.match_buffer(var_A, (n, T.int64(16)), "float16")
    B = T.match_buffer(var_B, (n * T.int64(16),), "float16")
    # with T.sblock("root"):
    for i, j in T.grid(n, T.int64(16)):
        with T.sblock("flatten"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi * T.int64(16) + vj])
            B[vi * T.int64(16) + vj] = A[vi, vj]
