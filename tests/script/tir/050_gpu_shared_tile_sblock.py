# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"target": T.target("cuda"), "tirx.noalias": True})
    # with T.sblock("root"):
    A_shared = T.sblock_alloc_buffer((64, 64), scope="shared")
    C_local = T.sblock_alloc_buffer((64, 64), scope="local")
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for by in T.thread_binding(4, thread="blockIdx.y"):
            for tx in T.thread_binding(16, thread="threadIdx.x"):
                for ty in T.thread_binding(16, thread="threadIdx.y"):
                    for k in range(64):
                        with T.sblock("A_shared"):
                            v0 = T.axis.spatial(64, bx * 16 + tx)
                            v1 = T.axis.spatial(64, k)
                            T.reads(A[v0, v1])
                            T.writes(A_shared[v0, v1])
                            A_shared[v0, v1] = A[v0, v1]
                    for k in range(64):
                        with T.sblock("C_local"):
                            vi = T.axis.spatial(64, bx * 16 + tx)
                            vj = T.axis.spatial(64, by * 16 + ty)
                            vk = T.axis.reduce(64, k)
                            T.reads(A_shared[vi, vk], B[vk, vj])
                            T.writes(C_local[vi, vj])
                            with T.init():
                                C_local[vi, vj] = T.float32(0.0)
                            C_local[vi, vj] = C_local[vi, vj] + A_shared[vi, vk] * B[vk, vj]
                    with T.sblock("C"):
                        vi = T.axis.spatial(64, bx * 16 + tx)
                        vj = T.axis.spatial(64, by * 16 + ty)
                        T.reads(C_local[vi, vj])
                        T.writes(C[vi, vj])
                        C[vi, vj] = C_local[vi, vj]
