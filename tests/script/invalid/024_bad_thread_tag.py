# expect-error: 7:14: threadIdx.q
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((32,), "float32")):
    for i in T.thread_binding(32, thread="threadIdx.q"):
        with T.sblock("A"):
            vi = T.axis.spatial(32, i)
            T.reads()
            T.writes(A[vi])
            A[vi] = T.float32(0.0)
