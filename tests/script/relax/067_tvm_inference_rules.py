# from tvm.script import tirx as T
# from tvm.script import relax as R

# Type inference as TVM does it: uneven split sections, clamped split indices, squeeze of a
# non-unit axis (kept), einsum broadcasting a size-1 label, comparisons of mixed dtypes,
# cumsum(exclusive=None), and a return annotation the body does not prove (kept as written).
@R.function(pure=False)
def main(x: R.Tensor((2, 10, 4), dtype="float32"), y: R.Tensor((3, 1, 4, 1), dtype="float32"), b: R.Tensor((10, 10), dtype="bool")) -> R.Tensor((2, 3), dtype="float32"):
    parts: R.Tuple(R.Tensor((2, 4, 4), dtype="float32"), R.Tensor((2, 4, 4), dtype="float32"), R.Tensor((2, 2, 4), dtype="float32")) = R.split(x, indices_or_sections=3, axis=1)
    pieces = R.split(x, indices_or_sections=[-2, 6, 4, 12], axis=1)
    sq: R.Tensor((3, 4), dtype="float32") = R.squeeze(y, axis=[0, 1, 2, 3])
    e = R.einsum((R.const([[1.0, 2.0]], "float32"), R.const([[1.0, 2.0], [3.0, 4.0]], "float32")), "ij, ij -> i")
    g = R.greater(b, R.const(0.0, "float32"))
    c = R.cumsum(x, axis=1, dtype=None, exclusive=None)
    R.assert_op(R.const(True, "bool"))
    R.assert_op(R.const(True, "bool"), [x, y], format="{} {}")
    R.print(x, y, format="x={} y={}")
    s = R.strided_slice(x, axes=[1], begin=[0], end=[3])
    return s
