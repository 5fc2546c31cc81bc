# expect-error: 9:13: R.call_tir_inplace: output 0 does not match the input it overwrites: shape (32,) vs (16,)
# from tvm.script import ir as I
# The well-formed check refuses an in-place output of another type than its input (TVM's FValidate).

@I.ir_module
class Module:
    @R.function
    def main(A: R.Tensor((16,), "float16")):
        B = R.call_tir_inplace(Module.add_one, A, inplace_indices=[0], out_ty=R.Tensor((32,), "float16"))
        return B

    @T.prim_func
    def add_one(A: T.Buffer((16,), "float16")):
        for i in range(16):
            A[i] = A[i] + T.float16(1.0)
