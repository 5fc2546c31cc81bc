# expect-error: 14:5: exports the symbol "k", which function f already has
# from tvm.script import ir as I
# from tvm.script import tirx as T
# Two kernels exporting one symbol: llvm built both under one name, c failed to compile.

@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "k"})
        A[0] = T.float32(1)

    @T.prim_func
    def g(A: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "k"})
        A[0] = T.float32(2)
