# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(dtype="float32", ndim=2), s: R.Shape(ndim=1), o: R.Any) -> R.Tensor(dtype="float32", ndim=2):
    m = T.int64()
    n = T.int64()
    k = T.int64()
    lv: R.Tensor((m, n), dtype="float32") = R.match_cast(x, R.Tensor((m, n), dtype="float32"))
    lv1: R.Shape([k]) = R.match_cast(s, R.Shape([k]))
    lv2: R.Tensor((k,), dtype="int32") = R.match_cast(o, R.Tensor((k,), dtype="int32"))
    lv3: R.Tensor((4, n), dtype="float32") = R.match_cast(lv, R.Tensor((4, n), dtype="float32"))
    lv4: R.Tuple(R.Tensor, R.Shape) = R.match_cast(o, R.Tuple(R.Tensor, R.Shape))
    return lv
