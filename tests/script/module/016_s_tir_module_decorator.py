# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(s_tir=True)
    def add_one(A: T.Buffer((T.int64(16),), "float32"), B: T.Buffer((T.int64(16),), "float32")):
        # with T.sblock("root"):
        for i in range(T.int64(16)):
            with T.sblock("add_one"):
                vi = T.axis.spatial(T.int64(16), i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((16,), dtype="float32"))
            R.output(gv)
        return gv
