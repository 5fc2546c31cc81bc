# expect-error: 5:23: name 'k' is not defined: a symbolic variable is introduced by a dimension written as its bare name
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(("k * 4",), "float32"), y: R.Tensor(("n",), "float32")):
    z = R.add(x, x)
    return z
