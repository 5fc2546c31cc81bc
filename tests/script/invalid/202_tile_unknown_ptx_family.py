# expect-error: 8:5: 'frobnicate' is not a ptx instruction family
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    T.device_entry()
    tx = T.thread_id([4])
    T.ptx.frobnicate.b32(A[tx], A[0])
