# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tuple(R.Tensor((4, 2), dtype="float32"), R.Tensor((4, 2), dtype="int32")):
    with R.dataflow():
        lv: R.Tensor((4, 8), dtype="float32") = R.sort(x, axis=1, descending=False)
        lv1: R.Tensor((4, 8), dtype="int32") = R.argsort(x, axis=1, descending=True, dtype="int32")
        lv2: R.Tuple(R.Tensor((4, 2), dtype="float32"), R.Tensor((4, 2), dtype="int32")) = R.topk(x, k=2, axis=-1, ret_type="both", largest=True, dtype="int32")
        R.output(lv2)
    return lv2
