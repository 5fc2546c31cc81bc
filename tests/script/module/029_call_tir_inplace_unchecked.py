# With the well-formed check off, R.call_tir_inplace may declare an output whose type differs from
# the input it overwrites (TVM's test of the check builds such a module): the call is typed as
# declared, and the well-formed check (on by default) is what refuses it.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module(check_well_formed=False)
class Module:
    @R.function
    def main(A: R.Tensor((16,), "float16")):
        B = R.call_tir_inplace(Module.add_one, A, inplace_indices=[0], out_ty=R.Tensor((32,), "float16"))
        return B

    @T.prim_func
    def add_one(A: T.Buffer((16,), "float16")):
        for i in range(16):
            A[i] = A[i] + T.float16(1.0)
