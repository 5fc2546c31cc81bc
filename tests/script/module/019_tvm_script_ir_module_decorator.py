import tvm
from tvm.script import tirx as T
from tvm.script import relax as R


@tvm.script.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def neg(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        # with T.sblock("root"):
        for i in range(T.int64(4)):
            with T.sblock("neg"):
                vi = T.axis.spatial(T.int64(4), i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = T.float32(0.0) - A[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.neg, (x,), out_ty=R.Tensor((4,), dtype="float32"))
            R.output(gv)
        return gv
