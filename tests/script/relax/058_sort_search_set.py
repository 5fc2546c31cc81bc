# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4, 8), dtype="float32"), b: R.Tensor((5,), dtype="float32"), p: R.Tensor((2, 10), dtype="float32"), u: R.Tensor((3, 1), dtype="float32"), i: R.Tensor((3, 1), dtype="int64")) -> R.Tensor((3, 1), dtype="int64"):
    with R.dataflow():
        lv: R.Tensor((4, 3), dtype="float32") = R.topk(x, k=3, axis=-1, ret_type="values", largest=False, dtype="int32")
        lv1: R.Tensor((4, 8), dtype="int64") = R.bucketize(x, b, out_int32=False, right=True)
        lv2: R.Tuple(R.Tensor(dtype="float32", ndim=1), R.Tensor(dtype="int64", ndim=1)) = R.unique(x, R.prim_value(T.bool(True)), R.prim_value(T.bool(False)), R.prim_value(T.bool(False)), R.prim_value(T.bool(True)))
        lv3: R.Tensor(dtype="int64", ndim=2) = R.nonzero(x)
        lv4: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="int64")) = R.median(x, axis=[1], keepdims=False)
        lv5: R.Tensor((), dtype="float32") = R.median(x, axis=None, keepdims=False)
        lv6: R.Tensor(dtype="float32", ndim=1) = R.unique(x)
        gv: R.Tensor((3, 1), dtype="int64") = R.multinomial_from_uniform(p, u, i, dtype="int64")
        R.output(gv)
    return gv
