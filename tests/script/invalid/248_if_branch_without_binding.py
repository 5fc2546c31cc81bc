# expect-error: 6:5: empty body is not allowed for a branch of an if in an R.function: it must bind the result variable
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((), "int32"), c: R.Tensor((), "bool")):
    if c:
        y = x
    else:
        pass
    return x
