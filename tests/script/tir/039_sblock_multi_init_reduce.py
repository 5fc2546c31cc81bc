# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((T.int64(8), T.int64(64)), "float32"), mean: T.Buffer((T.int64(8),), "float32"), sq: T.Buffer((T.int64(8),), "float32")):
    # with T.sblock("root"):
    for i, k in T.grid(T.int64(8), T.int64(64)):
        with T.sblock("stats"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(mean[vi], sq[vi])
            with T.init():
                mean[vi] = T.float32(0.0)
                sq[vi] = T.float32(0.0)
            mean[vi] = mean[vi] + A[vi, vk] * T.float32(0.015625)
            sq[vi] = sq[vi] + A[vi, vk] * A[vi, vk]
