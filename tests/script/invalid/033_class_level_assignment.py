# expect-error: 7:9: must bind an R.ExternFunc
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    n = 4

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x
