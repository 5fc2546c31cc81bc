# As in TVM, an if branch's result is its last binding, whatever statement made it: a void call
# standing alone (R.print binds `_`), or a dataflow block whose R.output binds the result.
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def conditional(x: R.Tensor((), "int32"), condition: R.Tensor((), "bool")) -> R.Tensor((), "int32"):
        if condition:
            R.print(x, format="True condition: {}")
        else:
            R.print(x, format="False condition: {}")
        return x

    @R.function
    def main(x: R.Tensor((8, 8), "float32"), w: R.Tensor((8, 8), "float32"), transpose: R.Tensor((), "bool")):
        if transpose:
            with R.dataflow():
                w_t = R.permute_dims(w)
                out = R.matmul(x, w_t)
                R.output(out)
        else:
            with R.dataflow():
                out = R.matmul(x, w)
                R.output(out)
        return out
