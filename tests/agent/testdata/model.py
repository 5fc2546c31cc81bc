# A small Relax module for kiln-agent's tests and bench: elementwise add, a small matmul returning
# a tuple, a symbolic-length doubling (the large-input round trips), and a 256^3 matmul to time.
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

    @R.function
    def matmul256(x: R.Tensor((256, 256), dtype="float32"), w: R.Tensor((256, 256), dtype="float32")) -> R.Tensor((256, 256), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((256, 256), dtype="float32") = R.matmul(x, w)
            R.output(y)
        return y
