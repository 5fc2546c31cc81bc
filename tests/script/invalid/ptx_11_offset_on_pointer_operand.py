# expect-error: 8:31: isspacep: operand 'a' does not support T.ptx.addr(...)
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "uint32")):
    T.device_entry()
    ok = T.local_scalar("uint32")
    T.ptx.isspacep.shared(ok, T.ptx.addr(A.data, 16))
