# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 4, 8), dtype="float32"), gamma: R.Tensor((8,), dtype="float32"), beta: R.Tensor((8,), dtype="float32"), g4: R.Tensor((4,), dtype="float32"), b4: R.Tensor((4,), dtype="float32"), mean: R.Tensor((4,), dtype="float32"), var: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 4, 8), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((2, 4, 8), dtype="float32") = R.nn.layer_norm(x, gamma, beta, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)
        lv1: R.Tensor((2, 4, 8), dtype="float32") = R.nn.rms_norm(lv, gamma, axes=[2], epsilon=1.0000000000000001e-05)
        lv2: R.Tuple(R.Tensor((2, 4, 8), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = R.nn.batch_norm(lv1, g4, b4, mean, var, axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=False)
        lv3: R.Tensor((2, 4, 8), dtype="float32") = lv2[0]
        lv4: R.Tensor((2, 4, 8), dtype="float32") = R.nn.group_norm(lv3, g4, b4, num_groups=2, channel_axis=1, axes=[2], epsilon=1.0000000000000001e-05, center=True, scale=True)
        R.output(lv4)
    return lv4
