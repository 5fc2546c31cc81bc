# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(("n",), dtype="float32"), k: R.Prim(value="m")) -> R.Prim("int64"):
    n = T.int64()
    m = T.int64()
    plus_one: R.Prim(value=n + T.int64(1)) = R.prim_value(n + T.int64(1))
    prod: R.Prim(value=n * m) = R.prim_value(n * m)
    return plus_one
