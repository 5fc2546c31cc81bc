# expect-error: 8:10: requires explicit extents
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((128,), "int32")):
    T.device_entry()
    tx = T.thread_id([128])
    cx = T.cluster_id([2])
    bx = T.cta_id_in_cluster(preferred=[2])
    A[tx] = bx
