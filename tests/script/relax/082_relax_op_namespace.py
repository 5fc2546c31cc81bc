# With `from tvm import relax`, relax.op.X and relax.op.nn.X are the operators R.X and R.nn.X (TVM's tests write them so).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm import relax
import tvm


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), w: R.Tensor((4, 8), "float32")) -> R.Tensor((2, 8), "float32"):
        with R.dataflow():
            y = relax.op.matmul(x, w)
            z = relax.op.nn.relu(y)
            c = tvm.relax.op.add(z, relax.const(1.0, "float32"))
            R.output(c)
        return c
