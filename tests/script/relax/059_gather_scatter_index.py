# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4, 5, 6), dtype="float32"), j: R.Tensor((3, 2), dtype="int64"), v: R.Tensor((3, 6), dtype="float32"), s: R.Tensor((4, 2, 6), dtype="float32"), a: R.Tensor((3, 1), dtype="int64"), c: R.Tensor((2,), dtype="int64"), lens: R.Tensor((4,), dtype="int32"), d: R.Tensor((3,), dtype="int64")) -> R.Tensor((4, 5, 6), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((3, 6), dtype="float32") = R.gather_nd(x, j, batch_dims=0)
        lv1: R.Tensor((4, 5, 6), dtype="float32") = R.scatter_nd(x, j, v, reduction="add")
        lv2: R.Tensor((4, 5, 6), dtype="float32") = R.slice_scatter(lv1, s, R.prim_value(1), R.prim_value(5), R.prim_value(2), axis=1)
        lv3: R.Tensor((3, 2, 6), dtype="float32") = R.index_tensor(x, (a, c))
        lv4: R.Tensor((4, 5, 6), dtype="float32") = R.index_put(lv2, (a, c), lv3, accumulate=True)
        lv5: R.Tensor((4, 5, 6), dtype="float32") = R.reverse_sequence(lv4, lens, seq_axis=1, batch_axis=0)
        lv6: R.Tuple(R.Tensor((3, 2), dtype="int64"), R.Tensor((3, 2), dtype="int64")) = R.meshgrid((d, c), indexing="ij")
        lv7: R.Tensor(dtype="float32", ndim=3) = R.dynamic_strided_slice(lv5, d, d, d)
        lv8: R.Tensor(dtype="float32", ndim=3) = R.collapse_sum_like(lv5, lv7)
        R.output(lv5)
    return lv5
