# from tvm.script import tirx as T
# from tvm.script import relax as R

from typing import TypeVar

n = TypeVar("n")

@R.function
def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
    y: R.Tensor((n, 4), dtype="float32") = R.add(x, x)
    return y
