# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
    if cond:
        lv: R.Tensor((4,), dtype="float32") = R.add(x, x)
        gv: R.Tensor((4,), dtype="float32") = R.multiply(lv, x)
    else:
        gv: R.Tensor((4,), dtype="float32") = R.subtract(x, x)
    out: R.Tensor((4,), dtype="float32") = R.nn.relu(gv)
    return out
