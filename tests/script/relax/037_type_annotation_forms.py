# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(a: R.Tensor, b: R.Tensor(dtype="float32"), c: R.Tensor(dtype="int8", ndim=3), d: R.Tensor(ndim=2), e: R.Shape, f: R.Shape(ndim=3), g: R.Shape([1, 2, 3]), h: R.Any, i: R.Object, j: R.Tuple, k: R.Tuple(R.Tensor((2,), dtype="float32"), R.Any), l: R.Prim("float16"), m: R.Callable((R.Tensor((2,), dtype="float32"),), R.Tensor((2,), dtype="float32"), True), p: R.PackedFunc) -> R.Tuple(R.Tensor, R.Any):
    out: R.Tuple(R.Tensor, R.Any) = a, h
    return out
