# expect-error: 8:5: 'streaming' is not a valid modifier for 'ld'
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    v = T.local_scalar("uint32")
    T.ptx.ld.global_.streaming.b32(v, A.ptr_to([0]))
