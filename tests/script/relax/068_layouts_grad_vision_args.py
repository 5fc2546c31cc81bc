# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

# Pooling and resize in packed layouts, R.image.* sizes as Python tuples, attention_var_len in
# TVM's argument order (the k arguments default to the q ones), call_tir_inplace with positional
# inplace_indices and out_ty, and the R.grad.* backward operators.
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def copy(A: T.Buffer((2, 3), "int32"), B: T.Buffer((2, 3), "int32")):
        for i, j in T.grid(2, 3):
            B[i, j] = A[i, j]

    @R.function
    def main(x: R.Tensor((2, 1, 28, 28, 4), dtype="float32"), img: R.Tensor((1, 3, 8, 8, 16), dtype="float32"), theta: R.Tensor((2, 2, 3), dtype="float32"), a: R.Tensor((2, 3), dtype="int32"), b: R.Tensor((2, 3), dtype="int32")):
        cls = Module
        with R.dataflow():
            p = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], layout="NCHW4c")
            q = R.image.resize2d(img, size=(16, 12), layout="NCHW16c", method="nearest_neighbor")
            grid = R.image.affine_grid(theta, size=(16, 16), align_corners=False)
            dx = R.grad.max_pool2d_backward(p, x, pool_size=[3, 3], strides=[2, 2], layout="NCHW4c")
            gv = R.call_tir_inplace(cls.copy, (a, b), [1], R.Tensor((2, 3), dtype="int32"))
            R.output(p, q, grid, dx, gv)
        return (p, q, grid, dx, gv)

    @R.function
    def attention(q: R.Tensor((1, 12, 4, 8), dtype="float16"), k: R.Tensor((1, 12, 4, 8), dtype="float16"), v: R.Tensor((1, 12, 4, 8), dtype="float16"), seqstart: R.Tensor((3,), dtype="int32"), max_seqlen: R.Tensor((), dtype="int32")):
        out = R.nn.attention_var_len(q, k, v, seqstart, max_seqlen, causal_mask="BottomRight")
        return out

    @R.function
    def nll_grad(g: R.Tensor((), dtype="float32"), pred: R.Tensor((3, 5), dtype="float32"), tgt: R.Tensor((3,), dtype="int64")):
        d = R.grad.nll_loss_backward(g, pred, tgt, reduction="sum")
        t = R.grad.take_backward(R.zeros((2, 5), "float32"), pred, R.const([0, 2], "int64"), axis=0)
        return (d, t)
