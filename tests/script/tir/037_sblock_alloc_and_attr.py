# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16, 32), "float32")):
    # with T.sblock("root"):
    row_max = T.sblock_alloc_buffer((16,))
    exp_val = T.sblock_alloc_buffer((16, 32), scope="local")
    for i, k in T.grid(16, 32):
        with T.sblock("row_max"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(row_max[vi])
            T.sblock_attr({"meta_schedule.auto_tensorize": "", "schedule_rule": "None"})
            with T.init():
                row_max[vi] = T.float32(-340282346638528859811704183484516925440.0)
            row_max[vi] = T.max(row_max[vi], A[vi, vk])
    for i, j in T.grid(16, 32):
        with T.sblock("exp"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj], row_max[vi])
            T.writes(exp_val[vi, vj])
            T.sblock_attr({"layout_free_placeholders": [], "meta_schedule.unroll_explicit": 64})
            exp_val[vi, vj] = T.exp(A[vi, vj] - row_max[vi])
    for i, j in T.grid(16, 32):
        with T.sblock("copy"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(exp_val[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = exp_val[vi, vj]
