# expect-error: 5:43: ndim=3 does not match
# from tvm.script import relax as R

@R.function
def f(x: R.Tensor((2, 3), "float32", ndim=3)):
    return x
