# Symbols no library can export together: two kernels exporting one name, kernels exported as C
# library functions. TVM's parser accepts them (its analysis and transform tests hold such
# modules); kiln reads them too and refuses them when it builds a library
# (compiler/driver/kernel_symbols.h).
from tvm.script import ir as I
from tvm.script import tirx as T

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

    @T.prim_func
    def exp(A: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "exp"})
        A[0] = T.exp(A[1])

    @T.prim_func
    def alloc(A: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "malloc"})
        A[0] = T.float32(1)
