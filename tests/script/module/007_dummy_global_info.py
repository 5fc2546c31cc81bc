# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"dummy": [I.dummy_global_info(), I.dummy_global_info()]})
    @R.function
    def main(x: R.Tensor((2,), dtype="int32")) -> R.Tensor((2,), dtype="int32"):
        return x
