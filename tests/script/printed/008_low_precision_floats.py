# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main():
    T.evaluate(T.float8_e3m4(0.0))
    T.evaluate(T.float8_e4m3b11fnuz(1.0))
    T.evaluate(T.float8_e8m0fnu(2.0))
    T.evaluate(T.float6_e2m3fn(0.5))
    T.evaluate(T.float6_e3m2fn(1.5))
    T.evaluate(T.float4_e2m1fn(1.0))
