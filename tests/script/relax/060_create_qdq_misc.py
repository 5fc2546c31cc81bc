# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4, 8), dtype="float32"), s: R.Tensor((8,), dtype="float32"), z: R.Tensor((8,), dtype="int8")) -> R.Tensor((4, 8), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((4, 8), dtype="float32") = R.eye_like(x, R.prim_value(1), dtype="void")
        lv1: R.Tensor((10,), dtype="float32") = R.hamming_window(R.prim_value(10), R.prim_value(T.bool(True)), R.prim_value(T.float64(0.54)), R.prim_value(T.float64(0.46)), dtype="float32")
        lv2: R.Tensor((4, 8), dtype="int8") = R.quantize(x, s, z, out_dtype="int8", axis=-1)
        lv3: R.Tensor((4, 8), dtype="float32") = R.dequantize(lv2, s, z, out_dtype="float32", axis=-1)
        lv4: R.Tensor((4, 8), dtype="float16") = R.wrap_param(x, dtype="float16")
        lv5: R.Tensor((4, 8), dtype="float32") = R.ewise_fma(lv3, lv, x)
        lv6: R.Tensor((), dtype="int64") = R.size(lv5)
        lv7: R.Tensor((4, 8), dtype="float32") = R.builtin.stop_lift_params(lv5)
        lv8: R.Tensor((2, 4, 8), dtype="float32") = R.stack((lv7, lv5), axis=0)
        lv9: R.Tensor((4, 3), dtype="float32") = R.eye(R.prim_value(4), R.prim_value(3), R.prim_value(0), dtype="float32")
        R.output(lv7)
    return lv7
