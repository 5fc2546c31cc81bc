# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"calling_conv": 1, "target": T.target("cuda"), "tirx.is_global_func": True})
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
    red_buf0 = T.alloc_buffer((1,), "float32", scope="local")
    T.attr(T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0.0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0)))
    T.tvm_thread_allreduce(T.uint32(1), A[threadIdx_x], T.bool(True), red_buf0[0], threadIdx_x)
    B[threadIdx_x] = red_buf0[0]
    T.evaluate(T.call_extern("void", "copy_ptr", T.tvm_access_ptr(T.type_annotation("float32"), A.data, 0, 16, 1)))
