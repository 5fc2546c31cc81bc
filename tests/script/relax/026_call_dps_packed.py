# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((128, 128), dtype="float32")) -> R.Tuple(R.Tensor((128, 128), dtype="float32"), R.Tensor((128,), dtype="int32")):
    with R.dataflow():
        y = R.call_dps_packed("extern_func", (x,), out_ty=R.Tensor((128, 128), dtype="float32"))
        z = R.call_dps_packed("extern_pair", (x, y), out_ty=[R.Tensor((128, 128), dtype="float32"), R.Tensor((128,), dtype="int32")])
        R.output(z)
    return z
