# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_inplace(A: T.Buffer((T.int64(16),), "float32"), B: T.Buffer((T.int64(16),), "float32")):
        # with T.sblock("root"):
        for i in range(T.int64(16)):
            with T.sblock("add"):
                vi = T.axis.spatial(T.int64(16), i)
                T.reads(A[vi], B[vi])
                T.writes(A[vi])
                A[vi] = A[vi] + B[vi]

    @R.function
    def main(x: R.Tensor((16,), dtype="float32"), y: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        cls = Module
        gv = R.call_tir_inplace(cls.add_inplace, (x, y), out_ty=R.Tensor((16,), dtype="float32"), inplace_indices=[0])
        return gv
