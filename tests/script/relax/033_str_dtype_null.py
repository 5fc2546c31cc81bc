# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function(pure=False)
def main(x: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
    s: R.Any = R.str("hello")
    d: R.Any = R.dtype("float32")
    nv: R.Any = R.null_value()
    R.print(x, format=R.str("x: {}"))
    R.assert_op(R.const(False, "bool"), x, format=R.str("x: {}"))
    return x
