# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function(pure=False)
def main(clo: R.Any, x: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
    res: R.Tensor((), dtype="int32") = R.invoke_closure(clo, (x,), ty_args=R.Tensor((), dtype="int32"))
    res2 = R.invoke_pure_closure(clo, (res,), ty_args=R.Tensor((), dtype="int32"))
    return res2
