# expect-error: 6:5: inconsistent extents for scope binding cta->thread (T.thread_id): 64 vs 256
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    T.device_entry()
    bx = T.cta_id([2])
    w = T.warp_id([8])
    lane = T.lane_id([32])
    tx = T.thread_id([64])
    A[bx] = w + lane + tx
