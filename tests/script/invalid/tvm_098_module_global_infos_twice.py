# expect-error: 7:5: global_infos
# from tvm.script import ir as I
# from tvm.script import relax as R
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        return x
