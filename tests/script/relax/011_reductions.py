# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 1, 4), dtype="float32"), R.Tensor((), dtype="float32")):
    with R.dataflow():
        lv: R.Tensor((2, 4), dtype="float32") = R.sum(x, axis=[1], keepdims=False)
        lv1: R.Tensor((2, 1, 4), dtype="float32") = R.mean(x, axis=[1], keepdims=True)
        lv2: R.Tensor((), dtype="float32") = R.max(x, axis=None, keepdims=False)
        lv3: R.Tensor((3,), dtype="float32") = R.min(x, axis=[0, 2], keepdims=False)
        lv4: R.Tensor((2, 3), dtype="float32") = R.prod(x, axis=[-1], keepdims=False)
        lv5: R.Tensor((1, 1, 1), dtype="float32") = R.variance(x, axis=None, keepdims=True)
        lv6: R.Tensor((2, 3), dtype="float32") = R.std(x, axis=[2], keepdims=False)
        gv: R.Tuple(R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 1, 4), dtype="float32"), R.Tensor((), dtype="float32")) = lv, lv1, lv2
        R.output(gv)
    return gv
