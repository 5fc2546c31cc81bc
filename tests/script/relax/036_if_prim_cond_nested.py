# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(c1: R.Prim("bool"), c2: R.Tensor((), dtype="bool"), x: R.Tensor((2,), dtype="int32")) -> R.Tensor((2,), dtype="int32"):
    if c1:
        if c2:
            r: R.Tensor((2,), dtype="int32") = R.add(x, R.const(1, "int32"))
        else:
            r: R.Tensor((2,), dtype="int32") = R.add(x, R.const(2, "int32"))
        y: R.Tensor((2,), dtype="int32") = r
    else:
        y: R.Tensor((2,), dtype="int32") = x
    return y
