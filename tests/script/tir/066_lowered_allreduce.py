# from tvm.script import tirx as T
# A lowered cross-thread reduction: T.comm_reducer inside a scoped T.attr that is followed by more
# statements (printed as `with T.attr(...)`), a target with a host.

@T.prim_func(private=True)
def main(A: T.Buffer((4, 128), "float32"), B: T.Buffer((4,), "float32")):
    T.func_attr({"target": T.target("cuda", host="llvm")})
    threadIdx_y = T.launch_thread("threadIdx.y", 4)
    red_buf = T.alloc_buffer((1,), scope="local")
    threadIdx_x = T.launch_thread("threadIdx.x", 128)
    with T.attr(T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0)]), "reduce_scope", T.int32(0)):
        A_flat = T.decl_buffer((512,), data=A.data)
        T.tvm_thread_allreduce(T.uint32(1), A_flat[threadIdx_y * 128 + threadIdx_x], T.bool(True), red_buf[0], threadIdx_x)
    with T.decl_buffer((1,), data=red_buf.data, scope="local") as red_alias:
        red_alias[0] = red_alias[0] * T.float32(2)
    if threadIdx_x == 0:
        B[threadIdx_y] = red_buf[0]
