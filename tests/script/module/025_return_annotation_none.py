# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 3), dtype="float32")):
        cls = Module
        res = cls.mul(x)
        return res

    # `-> None` declares the empty tuple R.Tuple as the return type; callers see that type.
    @R.function
    def mul(x: R.Tensor((3, 3), dtype="float32")) -> None:
        res = R.multiply(x, x)
        return res
