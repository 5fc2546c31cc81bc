# expect-error: 8:5: ld expects 2 operand(s) (d, addr), got 3
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "uint32")):
    T.device_entry()
    v = T.local_scalar("uint32")
    T.ptx.ld.shared.b32(v, A.data, 8)
