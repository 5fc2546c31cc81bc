# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), k: T.int64) -> R.Tensor((4,), dtype="float32"):
        # from tvm.script import tirx as T
        # from tvm.tirx.layout import Axis
        # from tvm.script import relax as R

        @R.function
        def double(y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            z: R.Tensor((4,), dtype="float32") = R.add(y, y)
            return z

        w: R.Tensor((4,), dtype="float32") = double(x)
        return w
