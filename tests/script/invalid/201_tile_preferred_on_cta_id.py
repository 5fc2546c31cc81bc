# expect-error: 9:10: preferred= is only valid for T.cta_id_in_cluster
# A preferred cluster shape is a hint of the cluster->cta scope id only (TVM rejects it on T.cta_id).
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((128,), "int32")):
    T.device_entry()
    tx = T.thread_id([128])
    bx = T.cta_id([128], preferred=[256])
    A[tx] = bx
