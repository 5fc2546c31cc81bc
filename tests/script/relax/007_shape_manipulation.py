# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tensor((24,), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((6, 4), dtype="float32") = R.reshape(x, R.shape([6, 4]))
        lv1: R.Tensor((4, 6), dtype="float32") = R.permute_dims(lv, axes=[1, 0])
        lv2: R.Tensor((6, 4), dtype="float32") = R.permute_dims(lv1, axes=None)
        lv3: R.Tensor((1, 6, 1, 4), dtype="float32") = R.expand_dims(lv2, axis=[0, 2])
        lv4: R.Tensor((6, 4), dtype="float32") = R.squeeze(lv3, axis=[0, 2])
        lv5: R.Tensor((1, 6, 4), dtype="float32") = R.expand_dims(lv4, axis=[0])
        lv6: R.Tensor((6, 4), dtype="float32") = R.squeeze(lv5, axis=None)
        gv: R.Tensor((24,), dtype="float32") = R.flatten(lv6)
        R.output(gv)
    return gv
