# from tvm.script import tirx as T

# Builtins of lowered and quantized code: packed calls with buffer arguments (packed into
# DLTensors as TVM does), q_multiply_shift_per_axis, thread_return, ptr_byte_offset, the Relax
# VM's AnyList registers and the WebGPU subgroup shuffles.
@T.prim_func(s_tir=True)
def main(A: T.Buffer((1024,), "float32"), C: T.Buffer((16, 16), "float32", strides=(32, 1)), Q: T.Buffer((4,), "int32"), r: T.handle):
    T.evaluate(T.call_packed("my_extern_array_func1", A, C))
    T.evaluate(T.call_cpacked("my_extern_array_func2", A, T.int32(3)))
    Q[0] = T.q_multiply_shift_per_axis(Q[1], Q[2], Q[3], 0, 31, T.bool(False), T.bool(True))
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    if threadIdx_x >= 16:
        T.thread_return()
    shared = T.alloc_buffer((16,), "float16", scope="shared")
    typed_alias = T.ptr_byte_offset(shared.data, 4, "float16")
    typed_buffer = T.decl_buffer((14,), "float16", data=typed_alias, scope="shared")
    typed_buffer[0] = T.float16(1)
    T.anylist_setitem_call_packed(r, 1, "vm.builtin.copy", T.anylist_getitem(r, 2))
    T.anylist_resetitem(r, T.int32(0))
    Q[1] = T.webgpu.subgroup_shuffle(Q[2], 0) + T.webgpu.subgroup_shuffle_up(Q[2], 1) + T.webgpu.subgroup_shuffle_down(Q[2], 1)
