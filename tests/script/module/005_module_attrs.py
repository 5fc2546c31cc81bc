# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_attrs({"device_num": 10, "external_mods": [], "system_lib_prefix": "lib_"})
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1})
        y: R.Tensor((4,), dtype="float32") = R.add(x, x)
        return y
