# from tvm.script import ir as I
# from tvm.script import relax as R

# A three-layer perceptron over a batch of 32 flattened 28x28 images: the end-to-end model test
# (and the README's example). The weights are parameters after the input (num_input=1), so a
# device farm sets them once with set_input and invokes the model statefully.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((32, 784), dtype="float32"), w1: R.Tensor((784, 256), dtype="float32"), b1: R.Tensor((256,), dtype="float32"), w2: R.Tensor((256, 128), dtype="float32"), b2: R.Tensor((128,), dtype="float32"), w3: R.Tensor((128, 10), dtype="float32"), b3: R.Tensor((10,), dtype="float32")) -> R.Tensor((32, 10), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((32, 256), dtype="float32") = R.matmul(x, w1, out_dtype="void")
            lv1: R.Tensor((32, 256), dtype="float32") = R.add(lv, b1)
            lv2: R.Tensor((32, 256), dtype="float32") = R.nn.relu(lv1)
            lv3: R.Tensor((32, 128), dtype="float32") = R.matmul(lv2, w2, out_dtype="void")
            lv4: R.Tensor((32, 128), dtype="float32") = R.add(lv3, b2)
            lv5: R.Tensor((32, 128), dtype="float32") = R.nn.relu(lv4)
            lv6: R.Tensor((32, 10), dtype="float32") = R.matmul(lv5, w3, out_dtype="void")
            lv7: R.Tensor((32, 10), dtype="float32") = R.add(lv6, b3)
            gv: R.Tensor((32, 10), dtype="float32") = R.nn.softmax(lv7, axis=-1)
            R.output(gv)
        return gv
