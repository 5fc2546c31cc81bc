# from tvm.script import ir as I
# from tvm.script import relax as R

# A small CNN on one 3x32x32 image: conv-bias-relu, max pool, conv-relu, global average pool and a
# dense classifier. The end-to-end model test for convolution, pooling and reshapes.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 32, 32), dtype="float32"), w1: R.Tensor((16, 3, 3, 3), dtype="float32"), b1: R.Tensor((1, 16, 1, 1), dtype="float32"), w2: R.Tensor((32, 16, 3, 3), dtype="float32"), w3: R.Tensor((32, 10), dtype="float32"), b3: R.Tensor((10,), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, 16, 32, 32), dtype="float32") = R.nn.conv2d(x, w1, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
            lv1: R.Tensor((1, 16, 32, 32), dtype="float32") = R.add(lv, b1)
            lv2: R.Tensor((1, 16, 32, 32), dtype="float32") = R.nn.relu(lv1)
            lv3: R.Tensor((1, 16, 16, 16), dtype="float32") = R.nn.max_pool2d(lv2, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
            lv4: R.Tensor((1, 32, 16, 16), dtype="float32") = R.nn.conv2d(lv3, w2, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
            lv5: R.Tensor((1, 32, 16, 16), dtype="float32") = R.nn.relu(lv4)
            lv6: R.Tensor((1, 32, 1, 1), dtype="float32") = R.nn.adaptive_avg_pool2d(lv5, output_size=[1, 1], layout="NCHW", out_layout="NCHW")
            lv7: R.Tensor((1, 32), dtype="float32") = R.reshape(lv6, R.shape([1, 32]))
            lv8: R.Tensor((1, 10), dtype="float32") = R.matmul(lv7, w3, out_dtype="void")
            gv: R.Tensor((1, 10), dtype="float32") = R.add(lv8, b3)
            R.output(gv)
        return gv
