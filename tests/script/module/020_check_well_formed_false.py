# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

# With check_well_formed=False TVM's parser types an annotated call by its annotation without
# comparing it with the inferred type; the annotation of a call_tir differing from its out_ty is
# then printed.
@I.ir_module(check_well_formed=False)
class Module:
    @T.prim_func(private=True)
    def f(out: T.Buffer((1,), "int32")):
        out[0] = 1

    @R.function
    def main(A: R.Tensor((128, 32), dtype="float32"), B: R.Tensor((128, 32), dtype="float32")):
        cls = Module
        C: R.Tensor((128, 32), dtype="int32") = R.add(A, B)
        gv: R.Tensor((), dtype="int32") = R.call_tir(cls.f, (), R.Tensor((1,), dtype="int32"))
        return (C, gv)
