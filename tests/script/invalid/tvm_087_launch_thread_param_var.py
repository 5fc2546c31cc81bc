# expect-error: 5:5: env_thread
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    T.launch_thread(n, 4)
    A[0] = T.float32(1)
