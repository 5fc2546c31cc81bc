# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    for i, k in T.grid(16, 16):
        with T.sblock("max"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32("-inf")
            B[vi] = T.max(B[vi], T.if_then_else(T.isnan(A[vi, vk]), T.float32("inf"), A[vi, vk]))
