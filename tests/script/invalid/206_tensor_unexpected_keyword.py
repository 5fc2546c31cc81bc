# expect-error: 5:48: unexpected keyword argument 'foo'
# from tvm.script import relax as R

@R.function
def f(x: R.Tensor(dtype="float32", ndim=1, foo=2)):
    return x
