# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
    f: R.Callable = R.ExternFunc("f")
    g: R.Callable(ret=R.Tensor((4,), dtype="float32"), purity=True) = R.ExternFunc("g")
    h: R.Callable((R.Tensor((4,), dtype="float32"),), R.Tensor((4,), dtype="float32"), True) = R.ExternFunc("h")
    y = R.call_dps_packed(f, (x,), out_ty=R.Tensor((4,), dtype="float32"))
    return y
