# expect-error: 8:9: I.ir_module
# from tvm.script import ir as I
# from tvm.script import tirx as T
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32")):
        I.module_attrs({"a": 1})
        A[0] = T.float32(1)
