# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
    @R.function
    def nested(y: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
        z: R.Tensor((), dtype="int32") = R.add(y, y)
        return z

    r: R.Tensor((), dtype="int32") = nested(x)
    return r
