# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4, 4), dtype="float32"), y: R.Tensor((4, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 4), dtype="bool"), R.Tensor((4, 4), dtype="bool")):
    with R.dataflow():
        lv: R.Tensor((4, 4), dtype="bool") = R.equal(x, y)
        lv1: R.Tensor((4, 4), dtype="bool") = R.not_equal(x, y)
        lv2: R.Tensor((4, 4), dtype="bool") = R.less(x, y)
        lv3: R.Tensor((4, 4), dtype="bool") = R.less_equal(x, y)
        lv4: R.Tensor((4, 4), dtype="bool") = R.greater(x, y)
        lv5: R.Tensor((4, 4), dtype="bool") = R.greater_equal(x, y)
        lv6: R.Tensor((4, 4), dtype="bool") = R.logical_and(lv, lv1)
        lv7: R.Tensor((4, 4), dtype="bool") = R.logical_or(lv2, lv3)
        lv8: R.Tensor((4, 4), dtype="bool") = R.logical_not(lv4)
        lv9: R.Tensor((4, 4), dtype="bool") = R.logical_xor(lv5, lv8)
        lv10: R.Tensor((4, 4), dtype="bool") = R.isnan(x)
        lv11: R.Tensor((4, 4), dtype="bool") = R.isinf(y)
        lv12: R.Tensor((4, 4), dtype="bool") = R.isfinite(x)
        gv: R.Tuple(R.Tensor((4, 4), dtype="bool"), R.Tensor((4, 4), dtype="bool")) = lv6, R.logical_and(lv7, lv9)
        R.output(gv)
    return gv
