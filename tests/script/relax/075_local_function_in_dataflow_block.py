# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            # The local function's own dataflow block must not hide this block's R.output list.
            @R.function
            def inner(a: R.Tensor((4,), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
                with R.dataflow():
                    c = R.add(a, b)
                    R.output(c)
                return c

            z = R.add(x, y)
            w = R.multiply(z, z)
            R.output(inner, w)
        q = inner(w, x)
        return q
