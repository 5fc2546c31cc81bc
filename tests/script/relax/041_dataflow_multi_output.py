# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 8), dtype="float32")) -> R.Tuple(R.Tensor((4, 8), dtype="float32"), R.Tensor((4,), dtype="float32")):
    with R.dataflow():
        lv: R.Tensor((4, 8), dtype="float32") = R.matmul(x, w, out_dtype="void")
        lv1: R.Tensor((4, 8), dtype="float32") = R.nn.relu(lv)
        gv: R.Tensor((4, 8), dtype="float32") = R.add(lv1, x)
        gv1: R.Tensor((4,), dtype="float32") = R.sum(gv, axis=[1], keepdims=False)
        R.output(gv, gv1)
    gv2: R.Tuple(R.Tensor((4, 8), dtype="float32"), R.Tensor((4,), dtype="float32")) = gv, gv1
    return gv2
