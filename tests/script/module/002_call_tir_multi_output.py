# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def split_halves(A: T.Buffer((T.int64(8),), "float32"), L: T.Buffer((T.int64(4),), "float32"), H: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i in range(T.int64(4)):
            with T.sblock("split"):
                vi = T.axis.spatial(T.int64(4), i)
                T.reads(A[vi:vi + T.int64(5)])
                T.writes(L[vi], H[vi])
                L[vi] = A[vi]
                H[vi] = A[vi + T.int64(4)]

    @R.function
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.split_halves, (x,), out_ty=[R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")])
            lv1: R.Tensor((4,), dtype="float32") = lv[0]
            lv2: R.Tensor((4,), dtype="float32") = lv[1]
            gv: R.Tensor((4,), dtype="float32") = R.add(lv1, lv2)
            R.output(gv)
        return gv
