# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = A[i] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        # out_ty=[T] is the single output type T (not a one-field tuple), as in TVM's wrapper.
        y: R.Tensor((4,), dtype="float32") = R.call_tir_inplace(cls.double, (x,), out_ty=[R.Tensor((4,), dtype="float32")], inplace_indices=[0])
        return y
