# expect-error: 6:9: must not exceed the bounds
# from tvm.script import relax as R

@R.function
def func(A: R.Tensor([16], "uint8")):
    B = R.memory.view(A, dtype=R.dtype("float16"))
    return B
