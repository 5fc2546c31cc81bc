# from tvm.script import tirx as T

# Predicated (masked) loads and stores: A.vload(..., predicate=mask), A.vstore(..., predicate=mask).
@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((256,), "float32")):
    for i_0 in range(4):
        B[i_0 * 4:i_0 * 4 + 4] = A.vload([0, T.Ramp(i_0 * 4, 1, 4)], predicate=T.Broadcast(T.bool(True), 4))
    a_load = T.meta_var(B.vload([T.Ramp(0, 4, 4)], predicate=T.Broadcast(T.bool(False), 4)))
    A.vstore([0, T.Ramp(0, 2, 4)], a_load, predicate=T.Broadcast(T.bool(False), 4))
