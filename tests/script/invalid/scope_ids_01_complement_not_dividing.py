# expect-error: 6:5: has non-divisible extents: cta->thread (T.thread_id) = 96 is not divisible by cta->warp (T.warp_id) = 5
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    T.device_entry()
    bx = T.cta_id([2])
    w = T.warp_id([5])
    tx = T.thread_id([96])
    A[bx] = w + tx
