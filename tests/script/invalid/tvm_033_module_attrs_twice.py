# expect-error: 7:5: given twice
# from tvm.script import ir as I
# from tvm.script import tirx as T
@I.ir_module
class Module:
    I.module_attrs({"a": 1})
    I.module_attrs({"b": 1})

    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)
