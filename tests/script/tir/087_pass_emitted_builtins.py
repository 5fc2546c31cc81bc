# from tvm.script import tirx as T
# Calls TVM's own passes emit and print: s_tir.cp_async_raw / s_tir.ldg32 (InjectPTXAsyncCopy,
# InjectPTXLDG32), get_active_lane_mask predicates, ignore_loop_partition, cuda.iket_mark, and
# llvm_lookup_intrinsic_id (kept as the intrinsic's name).

@T.prim_func
def builtins(A: T.Buffer((32,), "float16"), B: T.Buffer((32,), "float16"), C: T.Buffer((16,), "uint8"), R: T.Buffer((1,), "int32"), I: T.Buffer((1,), "int32")):
    A_sh = T.alloc_buffer((32,), "float16", scope="shared")
    for i in range(2):
        T.s_tir.cp_async_raw("float16", A_sh.data, i * 16, A.data, i * 16, 16)
    T.s_tir.ldg32(R[0], 1, I[0], 0)
    for j in range(4):
        B.vstore([T.Ramp(j * 4, 1, 4)], A.vload([T.Ramp(j * 4, 1, 4)]), predicate=T.get_active_lane_mask("uint1x4", j * 4, 14))
        if T.ignore_loop_partition(j < 3):
            B[j] = A_sh[j]
    T.evaluate(T.call_intrin("", "tirx.cuda.iket_mark", "mark", R[0]))
    for k in range(16):
        C[k] = T.call_llvm_pure_intrin("uint8", T.llvm_lookup_intrinsic_id("llvm.ctpop.i8"), C[k])
