# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function(private=True)
def main(x: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
    y: R.Tensor((), dtype="int32") = R.add(x, x)
    return y
