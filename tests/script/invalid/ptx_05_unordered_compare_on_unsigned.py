# expect-error: 8:5: ltu is a floating-point comparison, not valid on .u32
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    p = T.local_scalar("uint32")
    T.ptx.setp.ltu.u32(p, A[0], A[1])
