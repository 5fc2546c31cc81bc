# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
    gv: R.Tensor((4, 4), dtype="float32") = R.add(x, y)
    return gv
