# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

from typing import TypeVar

M = TypeVar("M")

@T.prim_func
def main(A: T.Buffer((M, M * 2), "float32"), B: T.Buffer((M * 2, M), "float32")):
    for i, j in T.grid(M, M * 2):
        B[j, i] = A[i, j]
