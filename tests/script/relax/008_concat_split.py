# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 4), dtype="float32"), y: R.Tensor((2, 6), dtype="float32")) -> R.Tuple(R.Tensor((2, 5), dtype="float32"), R.Tensor((2, 5), dtype="float32")):
    with R.dataflow():
        lv: R.Tensor((2, 10), dtype="float32") = R.concat((x, y), axis=1)
        lv1: R.Tuple(R.Tensor((2, 5), dtype="float32"), R.Tensor((2, 5), dtype="float32")) = R.split(lv, indices_or_sections=2, axis=1)
        lv2: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 3), dtype="float32")) = R.split(lv, indices_or_sections=[3, 7], axis=1)
        lv3: R.Tensor((2, 3), dtype="float32") = lv2[0]
        lv4: R.Tensor((4, 3), dtype="float32") = R.concat((lv3, lv2[2]), axis=0)
        gv: R.Tuple(R.Tensor((2, 5), dtype="float32"), R.Tensor((2, 5), dtype="float32")) = lv1
        R.output(gv)
    return gv
