# from tvm.script import ir as I
# from tvm.script import tirx as T
# T.call_tir(f, *args) inside a PrimFunc is a call of another PrimFunc of the module, as f(*args).

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        T.call_tir(Module.fill, A.data, 7)
        A[0] = T.call_tir(Module.twice, A[1])

    @T.prim_func(private=True)
    def fill(p: T.handle("int32"), v: T.int32):
        B = T.decl_buffer((4,), "int32", data=p)
        for i in range(4):
            B[i] = v

    @T.prim_func(private=True)
    def twice(x: T.int32) -> T.int32:
        return x * 2
