# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function(pure=False)
def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
    n = T.int64()
    shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (R.prim_value(2),), ty_args=R.Tensor(dtype="int64", ndim=1))
    _: R.Tuple = R.call_builtin_with_ctx("vm.builtin.check_tensor_info", (x, R.prim_value(1), R.dtype("float32"), R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n,), dtype=\"float32\")) ")), ty_args=R.Tuple)
    return x
