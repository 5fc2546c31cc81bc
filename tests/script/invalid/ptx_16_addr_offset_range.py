# expect-error: 8:48: T.ptx.addr byte_offset 4294967296 is outside signed int32 range
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    v = T.local_scalar("uint32")
    T.ptx.ld.global_.b32(v, T.ptx.addr(A.data, 4294967296))
