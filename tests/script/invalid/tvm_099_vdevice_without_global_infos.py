# expect-error: 7:17: GlobalInfos
# from tvm.script import ir as I
# from tvm.script import relax as R
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32", "llvm:0")):
        return x
