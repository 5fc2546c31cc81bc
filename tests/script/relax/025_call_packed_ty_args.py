# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function(pure=False)
def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
    y: R.Tensor((8,), dtype="float32") = R.call_packed("my.extern.relu", x, ty_args=R.Tensor((8,), dtype="float32"))
    z: R.Any = R.call_packed("my.extern.make", y, R.prim_value(3), R.str("tag"), ty_args=R.Any)
    w: R.Tuple(R.Tensor((8,), dtype="float32"), R.Shape([8])) = R.call_packed("my.pair", y, ty_args=R.Tuple(R.Tensor((8,), dtype="float32"), R.Shape([8])))
    R.call_packed("my.log", y, ty_args=R.Tuple)
    return y
