# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "m_"})
    @T.prim_func(s_tir=True)
    def add_one(x: T.Buffer((T.int64(8),), "float32"), y: T.Buffer((T.int64(8),), "float32")):
        for i in range(T.int64(8)):
            y[i] = x[i] + T.float32(1.0)

    ext = R.ExternFunc("ext")
    @R.function
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((8,), dtype="float32"))
        return y
