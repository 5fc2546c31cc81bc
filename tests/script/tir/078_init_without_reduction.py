# from tvm.script import tirx as T

# An sblock with T.init but only spatial iter vars (TVM accepts it; the init runs every time).
@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i in T.thread_binding(0, 128, thread="threadIdx.x"):
        with T.sblock("outer"):
            vi = T.axis.S(128, i)
            with T.init():
                for j in T.serial(0, 128):
                    with T.sblock("init"):
                        vj = T.axis.S(128, j)
                        B[vi, vj] = T.float32(0.0)
            for k in T.serial(0, 128):
                for j in T.serial(0, 128):
                    with T.sblock("inner"):
                        vj, vk = T.axis.remap("SR", [j, k])
                        B[vi, vj] = B[vi, vj] + A[vi, vj, vk]
