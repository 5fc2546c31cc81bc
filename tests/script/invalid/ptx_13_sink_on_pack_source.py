# expect-error: 8:5: operand 'a' is not sinkable here
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    packed = T.local_scalar("uint64")
    T.ptx.mov.b64(packed, T.ptx.SINK, A[1])
