# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((4096,), "float16"), B: T.Buffer((4096,), "float16")):
    T.func_attr({"target": T.target("cuda"), "tirx.noalias": True})
    bx = T.launch_thread("blockIdx.x", 32)
    tx = T.launch_thread("threadIdx.x", 128)
    vthread = T.launch_thread("vthread", 1)
    B[bx * 128 + tx] = A[bx * 128 + tx] * T.float16(2.0) + T.float16(0.5)
