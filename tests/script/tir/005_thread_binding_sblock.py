# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((256, 128), "float32"), B: T.Buffer((256,), "float32")):
    T.func_attr({"target": T.target({"arch": "sm_90", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}), "tirx.noalias": True})
    # with T.sblock("root"):
    for i_0 in T.thread_binding(8, thread="blockIdx.x"):
        for i_1 in T.thread_binding(32, thread="threadIdx.x"):
            for k in range(128):
                with T.sblock("B"):
                    vi = T.axis.spatial(256, i_0 * 32 + i_1)
                    vk = T.axis.reduce(128, k)
                    T.reads(A[vi, vk])
                    T.writes(B[vi])
                    with T.init():
                        B[vi] = T.float32(0.0)
                    B[vi] = B[vi] + A[vi, vk]
