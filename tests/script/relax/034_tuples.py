# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(t: R.Tuple(R.Tensor((2,), dtype="float32"), R.Tuple(R.Tensor((3,), dtype="int32"), R.Shape([1, 2])))) -> R.Tuple(R.Tensor((3,), dtype="int32"), R.Tensor((2,), dtype="float32")):
    a: R.Tensor((2,), dtype="float32") = t[0]
    inner: R.Tuple(R.Tensor((3,), dtype="int32"), R.Shape([1, 2])) = t[1]
    b: R.Tensor((3,), dtype="int32") = inner[0]
    c: R.Shape([1, 2]) = t[1][1]
    empty: R.Tuple = R.tuple()
    single: R.Tuple(R.Tensor((2,), dtype="float32")) = (a,)
    out: R.Tuple(R.Tensor((3,), dtype="int32"), R.Tensor((2,), dtype="float32")) = b, single[0]
    return out
