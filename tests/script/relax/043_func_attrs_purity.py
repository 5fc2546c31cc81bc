# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function(pure=False)
def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
    R.func_attr({"num_input": 1, "relax.force_pure": True, "global_symbol": "entry", "tag": "demo", "ratio": T.float32(0.5)})
    y: R.Tensor((4,), dtype="float32") = R.call_packed("side_effect", x, ty_args=R.Tensor((4,), dtype="float32"))
    return y
