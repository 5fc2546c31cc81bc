# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((3, 2), dtype="float32"):
    lv: R.Shape(ndim=2) = R.call_pure_packed("my.shape_func", x, ty_args=R.Shape(ndim=2))
    lv1: R.Tensor((3, 2), dtype="float32") = R.call_pure_packed("my.transpose", x, ty_args=R.Tensor((3, 2), dtype="float32"))
    return lv1
