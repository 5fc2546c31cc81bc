# A TIR node constructor in a Relax function keeps its int64 operands: T.FloorDiv(T.int64(32),
# T.int64(4)) is printed with their dtype (a bare int in the constructor is TIR's int32).
from tvm.script import relax as R
from tvm.script import tirx as T

@R.function(private=True)
def main(A: R.Tensor(("M", 32), "float32")):
    B = R.strided_slice(A, [1], [0], [T.FloorDiv(T.int64(32), T.int64(4))])
    C = R.strided_slice(A, [1], [0], [T.Add(T.int64(8), T.int64(0))])
    return (B, C)
