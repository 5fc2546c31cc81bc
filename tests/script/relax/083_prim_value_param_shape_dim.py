# An R.Prim(value="n") parameter defines n, usable as a shape dimension in later parameters, in the body and in the return type.
from tvm.script import relax as R

@R.function
def main(n_val: R.Prim(value="n"), x: R.Tensor(("n * 2",), "float32")) -> R.Tensor(("n * 2",), "float32"):
    y = R.add(x, x)
    z = R.zeros(R.shape([n]), "float32")
    return y
