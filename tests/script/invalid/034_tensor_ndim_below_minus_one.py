# expect-error: 4:41: ndim must be a non-negative int, or -1 for unknown
# from tvm.script import relax as R
@R.function
def f(x: R.Tensor(dtype="float32", ndim=-2)):
    return x
