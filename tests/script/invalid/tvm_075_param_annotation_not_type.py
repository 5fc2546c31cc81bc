# expect-error: 4:13: Relax type annotation
# from tvm.script import relax as R
@R.function
def main(x: 5):
    return x
