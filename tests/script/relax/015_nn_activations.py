# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 16), dtype="float32"), alpha: R.Tensor((16,), dtype="float32")) -> R.Tensor((2, 16), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((2, 16), dtype="float32") = R.nn.relu(x)
        lv1: R.Tensor((2, 16), dtype="float32") = R.nn.gelu(lv)
        lv2: R.Tensor((2, 16), dtype="float32") = R.nn.gelu_tanh(lv1)
        lv3: R.Tensor((2, 16), dtype="float32") = R.nn.silu(lv2)
        lv4: R.Tensor((2, 16), dtype="float32") = R.nn.leakyrelu(lv3, alpha=0.02)
        lv5: R.Tensor((2, 16), dtype="float32") = R.nn.softmax(lv4, axis=-1)
        lv6: R.Tensor((2, 16), dtype="float32") = R.nn.log_softmax(lv5, axis=1)
        lv7: R.Tensor((2, 16), dtype="float32") = R.nn.prelu(lv6, alpha, axis=1)
        lv8: R.Tensor((2, 16), dtype="float32") = R.nn.softplus(lv7, beta=1.0, threshold=20.0)
        gv: R.Tensor((2, 16), dtype="float32") = R.nn.selu(lv8)
        R.output(gv)
    return gv
