# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tensor((2, 5, 8), dtype="float32"):
    with R.dataflow():
        lv: R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32")) = R.nn.dropout(x, rate=0.5)
        lv1: R.Tensor((2, 3, 4), dtype="float32") = lv[0]
        lv2: R.Tensor((2, 5, 8), dtype="float32") = R.nn.pad(lv1, pad_width=[0, 0, 1, 1, 2, 2], pad_value=0.0, pad_mode="constant")
        R.output(lv2)
    return lv2
