# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def log(x: R.Tensor((4,), dtype="float32")) -> R.Tuple:
        R.print(x, format=R.str("x = {}"))
        done: R.Tuple = R.print(format=R.str("done"))
        return done

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        R.assert_op(R.const(True, "bool"), x, format=R.str("bad {}"))
        cls.log(x)
        return x
