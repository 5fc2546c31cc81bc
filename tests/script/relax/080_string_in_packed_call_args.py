# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    y = R.call_dps_packed("f", (x, "identity", R.prim_value(1)), out_ty=R.Tensor((4,), "float32"))
    return y
