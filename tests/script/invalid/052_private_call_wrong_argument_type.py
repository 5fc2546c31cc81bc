# expect-error: 14:34: call to @add1 passes float32 as argument 0 but parameter x is int32
# from tvm.script import ir as I
# from tvm.script import tirx as T
# llvm dumped an invalid module as raw IR; c and the interpreter converted the float silently.

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add1(x: T.int32) -> T.int32:
        return x + 1

    @T.prim_func
    def main(A: T.Buffer((8,), "float32")):
        A[0] = T.Cast("float32", Module.add1(T.float32(2.5)))
