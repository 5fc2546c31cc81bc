# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((4,), "float64"), a: T.int8, b: T.int16, c: T.int64, d: T.uint8, e: T.uint32, f: T.float16, g: T.float32, h: T.float64, p: T.bool):
    A[0] = T.Cast("float64", a) + T.Cast("float64", b) + T.Cast("float64", c)
    A[1] = T.Cast("float64", d) + T.Cast("float64", e)
    A[2] = T.Cast("float64", f) + T.Cast("float64", g) + h
    if p:
        A[3] = T.float64(1.0)
