# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fill(var_A: T.handle, m: T.int64, var_B: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n,))
        B = T.match_buffer(var_B, (n,))
        # with T.sblock("root"):
        for i in range(n):
            with T.sblock("fill"):
                vi = T.axis.spatial(n, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.Cast("float32", m)

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), k: R.Shape(["m"])) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        m = T.int64()
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.fill, (x, m * T.int64(2)), out_ty=R.Tensor((n,), dtype="float32"))
            gv1 = R.call_tir(cls.fill, (gv, R.prim_value(m)), out_ty=R.Tensor((n,), dtype="float32"))
            R.output(gv1)
        return gv1
