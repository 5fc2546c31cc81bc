# expect-error: 7:24: destination 'd' must have dtype uint32 (from .u32), got uint16
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "uint16")):
    T.device_entry()
    T.ptx.mad.wide.u16(A[0], A[1], A[2], A[3])
