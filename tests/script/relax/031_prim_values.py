# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(n: R.Prim("int64"), f: R.Prim("float32"), b: R.Prim("bool")) -> R.Tuple(R.Prim("int64"), R.Prim("float32")):
    a: R.Prim(value=T.int64(5)) = R.prim_value(T.int64(5))
    c: R.Prim("float32") = R.prim_value(T.float32(2.5))
    d: R.Prim("int32") = R.prim_value(3)
    e: R.Prim("bool") = R.prim_value(T.bool(True))
    t: R.Tuple(R.Prim("int64"), R.Prim("float32")) = n, f
    return t
