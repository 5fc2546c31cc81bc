# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    """A docstring in the class body is evaluated and dropped, as TVM's parser does."""

    my_ext = R.ExternFunc("my_ext")
    typed_ext = R.ExternFunc("ext.typed", R.Callable((R.Tensor((4,), "float32"),), R.Tensor((4,), "float32"), True))

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x
