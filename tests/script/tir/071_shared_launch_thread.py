# from tvm.script import tirx as T

# One thread variable launched twice (not SSA, as before ConvertSSA): no single launch_thread
# encloses all its uses, so it is printed as T.env_thread and each launch names it.
@T.prim_func(s_tir=True)
def main(A: T.Buffer((256,), "float32")):
    threadIdx_x = T.env_thread("threadIdx.x")
    with T.launch_thread(threadIdx_x, 256):
        A[threadIdx_x] = A[threadIdx_x] + T.float32(1.0)
    with T.launch_thread(threadIdx_x, 256):
        A[threadIdx_x] = A[threadIdx_x] + T.float32(2.0)
