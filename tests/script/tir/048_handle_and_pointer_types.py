# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(data: T.handle("float32", "global"), out: T.handle("float32"), n: T.int32, flags: T.handle):
    A = T.decl_buffer((n,), data=data)
    B = T.decl_buffer((n,), data=out)
    scratch = T.alloc_buffer((4,), "float32", scope="local")
    scratch[0] = T.float32(0.0)
    for i in range(n):
        scratch[0] = scratch[0] + A[i]
        B[i] = scratch[0]
    T.evaluate(T.call_extern("void", "notify", flags, T.address_of(B[0])))
