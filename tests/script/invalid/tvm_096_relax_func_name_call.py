# expect-error: 5:5: R.func_name
# from tvm.script import relax as R
@R.function
def main(x: R.Tensor((4,), "float32")):
    R.func_name("other")
    return x
