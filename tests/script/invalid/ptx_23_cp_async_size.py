# expect-error: 8:55: operand 'cp_size' must be one of 16, got 8
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float16")):
    T.device_entry()
    S = T.alloc_buffer((64,), "float16", scope="shared")
    T.ptx.cp.async_.cg.shared.global_(S.data, A.data, 8)
