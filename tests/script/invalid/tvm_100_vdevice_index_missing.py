# expect-error: 8:17: VDevice
# from tvm.script import ir as I
# from tvm.script import relax as R
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})
    @R.function
    def main(x: R.Tensor((4,), "float32", "llvm:3")):
        return x
