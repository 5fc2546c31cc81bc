# expect-error: 5:5: T.launch_thread takes a thread tag
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    T.launch_thread(5, 4)
    A[0] = T.float32(1)
