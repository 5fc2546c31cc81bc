# expect-error: 7:19: destination 'd' must be a writable scalar or buffer element
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    T.device_entry()
    T.ptx.abs.s32(A[0] + 1, A[1])
