# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(("n", 4), dtype="float32")) -> R.Shape(ndim=2):
    n = T.int64()
    s: R.Shape([n, 4]) = R.shape_of(x)
    s1: R.Shape([n, 4]) = R.shape([n, 4])
    s2: R.Shape([2, 3, n * 2]) = R.shape([2, 3, n * 2])
    return s
