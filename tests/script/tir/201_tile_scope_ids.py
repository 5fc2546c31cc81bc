# TVM v0.26's TIRx device DSL: T.device_entry() starts the device region (TVM prints it as the
# tirx.device_entry attribute); scope ids declare the index of this cluster / CTA / warpgroup /
# warp / thread within its parent scope, one var per axis, optionally deferred (no extents).
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((8, 10), "int32")):
    T.device_entry()
    bx, by = T.cta_id([8, 10])
    cbx = T.cta_id_in_cluster([2], preferred=[4])
    pair = T.cta_id_in_pair()
    clx = T.cluster_id()
    wg = T.warpgroup_id([2])
    warp = T.warp_id([8])
    wig = T.warp_id_in_wg([4])
    lane = T.lane_id([32])
    tx = T.thread_id([256], dtype="uint32")
    twg = T.thread_id_in_wg()
    T.warp_id([8])
    if lane == 0:
        B[bx, by] = cbx + pair + clx + wg + warp + wig + twg
    A[lane * 2] = T.Cast("float32", tx)


@T.prim_func
def flat_attr(A: T.Buffer((4,), "int32")):
    T.attr({"tirx.device_entry": T.bool(True)})
    bx = T.cta_id([4])
    A[bx] = A[bx] + 1
