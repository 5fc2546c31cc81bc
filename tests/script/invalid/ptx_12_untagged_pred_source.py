# expect-error: 8:42: operand 'c' is a .pred source
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "int32"), flag: T.uint32):
    T.device_entry()
    p = T.local_scalar("uint32")
    T.ptx.setp.gt.or_.s32(p, A[0], A[1], flag)
