# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def pair(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")):
        a: R.Tensor((3,), dtype="float32") = R.exp(x)
        b: R.Tensor((3,), dtype="float32") = R.log(x)
        t: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = a, b
        return t

    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        t: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = cls.pair(x)
        a: R.Tensor((3,), dtype="float32") = t[0]
        b: R.Tensor((3,), dtype="float32") = t[1]
        c: R.Tensor((3,), dtype="float32") = R.add(a, b)
        return c
