# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def fact(n: R.Tensor((), dtype="int64")) -> R.Tensor((), dtype="int64"):
        cls = Module
        cond: R.Tensor((), dtype="bool") = R.less_equal(n, R.const(1, "int64"))
        if cond:
            r: R.Tensor((), dtype="int64") = R.const(1, "int64")
        else:
            n1: R.Tensor((), dtype="int64") = R.subtract(n, R.const(1, "int64"))
            rec: R.Tensor((), dtype="int64") = cls.fact(n1)
            r: R.Tensor((), dtype="int64") = R.multiply(n, rec)
        return r

    @R.function
    def main(x: R.Tensor((), dtype="int64")) -> R.Tensor((), dtype="int64"):
        cls = Module
        y: R.Tensor((), dtype="int64") = cls.fact(x)
        return y
