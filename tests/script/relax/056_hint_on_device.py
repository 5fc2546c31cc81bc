# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((2, 3), dtype="float32") = R.hint_on_device(x, R.device(device_type=1, index=0), "global")
        lv1: R.Tensor((2, 3), dtype="float32") = R.multiply(lv, lv)
        R.output(lv1)
    return lv1
