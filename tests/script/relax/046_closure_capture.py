# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((3,), dtype="float32"), c: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
    @R.function
    def add_c(y: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        z: R.Tensor((3,), dtype="float32") = R.add(y, c)
        return z

    r: R.Tensor((3,), dtype="float32") = add_c(x)
    r2: R.Tensor((3,), dtype="float32") = add_c(r)
    return r2
