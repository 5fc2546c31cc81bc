# expect-error: 5:5: step
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in T.thread_binding(0, 16, step=2, thread="threadIdx.x"):
        A[i] = T.float32(1)
