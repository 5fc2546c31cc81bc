# expect-error: 7:5: decorator
# from tvm.script import ir as I
# from tvm.script import tirx as T
@I.ir_module
class Module:
    @T.float32
    def main(A: T.Buffer((16,), "float32")):
        A[0] = T.float32(1)
