# expect-error: 8:5: atom: .inc takes .u32
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    old = T.local_scalar("uint32")
    T.ptx.atom.global_.inc.s32(old, A.ptr_to([0]), A[1])
