# expect-error: 8:5: the .sem and .scope qualifiers go together
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    v = T.local_scalar("uint32")
    T.ptx.multimem_ld_reduce.gpu.min.u32(v, A.ptr_to([0]))
