# A small Relax module for kiln-agent's tests: elementwise add, a matmul with bias, and a
# symbolic-length doubling used for the large-input round trips.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def add(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            z: R.Tensor((4, 8), dtype="float32") = R.add(x, y)
            R.output(z)
        return z

    @R.function
    def matmul(x: R.Tensor((16, 32), dtype="float32"), w: R.Tensor((32, 8), dtype="float32")) -> R.Tuple(R.Tensor((16, 8), dtype="float32"), R.Tensor((16, 32), dtype="float32")):
        with R.dataflow():
            y: R.Tensor((16, 8), dtype="float32") = R.matmul(x, w)
            gv = (y, x)
            R.output(gv)
        return gv

    @R.function
    def double(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            y: R.Tensor((n,), dtype="float32") = R.add(x, x)
            R.output(y)
        return y
