# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(n: R.Prim("int64"), f: R.Prim("float32"), b: R.Prim("bool")) -> R.Tuple(T.int64, T.float32):
    a: T.int64 = R.prim_value(T.int64(5))
    c: T.float32 = T.float32(2.5)
    d: T.int64 = R.prim_value(3)
    e: T.bool = R.prim_value(T.bool(True))
    plus_one: T.int64 = n + 1
    t: R.Tuple(T.int64, T.float32) = plus_one, f
    return t
