# expect-error: 7:10: argument
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((128,), "float32")):
    tx = T.launch_thread("threadIdx.x")
    A[tx] = T.float32(0.0)
