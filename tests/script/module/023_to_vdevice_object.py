# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        # tvm.ir.VDevice(...) (I.VDevice) names the device object; to_vdevice keeps its
        # "target:id:scope" spelling.
        copied = R.to_vdevice(x, I.VDevice("cuda", 0, "global"))
        return copied
