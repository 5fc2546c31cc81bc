# A local function that calls itself: as in TVM, its variable is declared from the signature
# before the body is read, so the recursive call resolves (a loop written as tail recursion).
from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    @R.function
    def while_loop(i: R.Tensor((), "int32"), s: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cond = R.less(i, R.const(10, "int32"))
        if cond:
            new_i = R.add(i, R.const(1, "int32"))
            new_s = R.add(s, x)
            r = while_loop(new_i, new_s)
        else:
            r = s
        return r

    gv = while_loop(R.const(0, "int32"), x)
    return gv
