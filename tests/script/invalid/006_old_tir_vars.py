# expect-error: 18:14: tir_vars
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def fill(var_A: T.handle, n: T.int64):
        A = T.match_buffer(var_A, (n,))
        for i in range(n):
            A[i] = T.float32(1.0)

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        gv = R.call_tir(cls.fill, (x,), out_ty=R.Tensor((n,), dtype="float32"), tir_vars=R.shape([n]))
        return gv
