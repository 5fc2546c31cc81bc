# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    blockIdx_x = T.env_thread("blockIdx.x")
    threadIdx_x = T.env_thread("threadIdx.x")
    T.launch_thread(blockIdx_x, 8)
    T.launch_thread(threadIdx_x, 128)
    B[blockIdx_x * 128 + threadIdx_x] = T.exp(A[blockIdx_x * 128 + threadIdx_x])
