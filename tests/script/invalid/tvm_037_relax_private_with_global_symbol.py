# expect-error: 5:5: global_symbol
# from tvm.script import relax as R
@R.function(private=True)
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    R.func_attr({"global_symbol": "main"})
    return x
