# expect-error: 4:13: shape
# from tvm.script import relax as R
@R.function
def main(x: R.DTensor(5, "float32", "mesh[0]", "R")):
    return x
