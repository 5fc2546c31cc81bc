# expect-error: 8:21: ld: a uint32 address requires the shared state space
# from tvm.script import tirx as T

@T.prim_func
def main(base: T.uint32):
    T.device_entry()
    v = T.local_scalar("uint32")
    T.ptx.ld.b32(v, base)
