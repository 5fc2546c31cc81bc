# expect-error: 7:5: extent
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    tx = T.env_thread("threadIdx.x")
    T.launch_thread(tx, 4)
    T.launch_thread(tx, 8)
    A[tx] = T.float32(1)
