# TVM v0.26's TIRx helpers: scalar buffers (T.local_scalar / T.shared_scalar / T.alloc_scalar),
# local arrays (x: T.float32[4]), the dtype aliases (T.f32, T.i32, ...), element addresses
# (A.ptr_to([i]), T.address_of(A)) and the T.cuda helpers with fixed result dtypes.
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "uint32"), bar: T.Buffer((1,), "uint64")):
    T.device_entry()
    lane = T.lane_id([32])
    ok = T.local_scalar("uint32")
    s = T.shared_scalar("float32")
    g = T.alloc_scalar("int32", scope="global")
    a: T.f32[4]
    b: T.i32[2, 2]
    x: T.f32 = T.f32(0)
    ok = C[0]
    s = T.float32(1)
    g = 3
    a[0] = T.float32(lane)
    b[0, 1] = lane
    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
    T.cuda.cta_sync()
    C[1] = T.cuda.atomic_add(C.ptr_to([1]), ok)
    C[2] = T.cuda.get_tmem_addr(ok, 0, lane) + T.cuda.elect_sync()
    C[3] = T.cuda.cvta_generic_to_shared(T.address_of(bar))
    A[lane % 4] = a[0] + x + T.Cast("float32", b[0, 1] + g) + s


@T.prim_func
def reductions(A: T.Buffer((128,), "float32"), scratch: T.Buffer((4,), "float32")):
    T.device_entry()
    tx = T.thread_id([128])
    T.cuda.warp_sync()
    A[tx] = T.cuda.warp_sum(A[tx]) + T.cuda.warp_max(A[tx], width=16) + T.cuda.warp_reduce(A[tx], "min", 8)
    A[tx] = T.cuda.cta_sum(A[tx], 4, T.address_of(scratch)) + T.Cast("float32", T.cuda.thread_rank())
