# expect-error: 9:5: kind::mxf8f6f4 supports block32
# from tvm.script import tirx as T

@T.prim_func
def main():
    T.device_entry()
    d = T.local_scalar("uint32")
    desc = T.local_scalar("uint64")
    T.ptx.tcgen05.mma.cta_group__1.kind__mxf8f6f4.block_scale.block16(d, desc, desc, d, d, d, T.ptx.pred(d))
