# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32"), clo: R.Any) -> R.Tensor((4,), dtype="float32"):
    a: R.Tensor((4,), dtype="float32") = R.call_inplace_packed("my_inplace_add", x, y, inplace_indices=[0], ty_args=R.Tensor((4,), dtype="float32"))
    b: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((2,), dtype="float32")) = R.call_inplace_packed("my_split", a, y, inplace_indices=[1, -1], ty_args=[R.Tensor((4,), dtype="float32"), R.Tensor((2,), dtype="float32")])
    c: R.Tensor((4,), dtype="float32") = R.invoke_pure_closure(clo, (a,), ty_args=R.Tensor((4,), dtype="float32"))
    return c
