# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(("n",), dtype="float32"), k: R.Prim("int64")) -> T.int64:
    n = T.int64()
    plus_one: T.int64 = R.prim_value(n + T.int64(1))
    prod: T.int64 = k * 2
    alias = prod
    return plus_one
