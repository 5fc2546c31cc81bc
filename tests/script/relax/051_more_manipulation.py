# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32"), idx: R.Tensor((2, 3), dtype="int64")) -> R.Tensor((2, 3), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((4, 9), dtype="float32") = R.tile(x, repeats=[2, 3])
        lv1: R.Tensor((4, 3), dtype="float32") = R.repeat(x, repeats=2, axis=0)
        lv2: R.Tensor((2, 3), dtype="float32") = R.flip(x, axis=1)
        lv3: R.Tensor((2, 3), dtype="float32") = R.gather_elements(x, idx, axis=0)
        lv4: R.Tensor((2, 3), dtype="float32") = R.scatter_elements(x, idx, lv3, axis=1, reduction="update")
        lv5: R.Tensor((2, 2, 3), dtype="float32") = R.stack((x, lv4), axis=0)
        lv6: R.Tensor((2, 3, 4), dtype="int64") = R.one_hot(idx, R.prim_value(T.int64(1)), R.prim_value(T.int64(0)), depth=4, axis=-1)
        lv7: R.Tensor((1, 3), dtype="float32") = R.collapse_sum_to(x, R.shape([1, 3]))
        lv8: R.Tensor((), dtype="float32") = R.einsum((x, x), subscripts="ij,ij->")
        R.output(lv4)
    return lv4
