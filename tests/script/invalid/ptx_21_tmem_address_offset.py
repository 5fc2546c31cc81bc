# expect-error: 8:64: operand 'taddr' does not support T.ptx.addr(...)
# from tvm.script import tirx as T

@T.prim_func
def main(t: T.uint32):
    T.device_entry()
    r = T.alloc_local((2,), "uint32")
    T.ptx["tcgen05.ld.sync.aligned.32x32b.x2.b32"](r[0], r[1], T.ptx.addr(t, 8))
