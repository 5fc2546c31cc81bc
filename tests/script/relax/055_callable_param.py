# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(v0: R.Tensor((54, 96), dtype="float32"), f: R.Callable((R.Tensor((54, 96), dtype="float32"),), R.Tensor((54, 96), dtype="float32"), True)) -> R.Tensor((54, 96), dtype="float32"):
    lv: R.Tensor((54, 96), dtype="float32") = f(v0)
    return lv
