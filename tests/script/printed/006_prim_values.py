# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@R.function(pure=False)
def main(x: R.Tensor(("n",), dtype="float32"), k: T.int64) -> T.int64:
    n = T.int64()
    a: R.Prim(value=3) = 3
    b: R.Prim(value=T.int32(5)) = T.int32(5)
    c: R.Any = R.call_packed("f", x, 2, True, T.float32(0.5), n + 1, ty_args=R.Any)
    return k
