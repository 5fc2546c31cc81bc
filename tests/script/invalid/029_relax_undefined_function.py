# expect-error: 11:46: missing_fn
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y: R.Tensor((4,), dtype="float32") = cls.missing_fn(x)
        return y
