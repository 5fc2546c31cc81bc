# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((256, 256), "float32")):
    A.vstore([0, T.Ramp(0, 2, 4)], B.vload([0, T.Ramp(0, 4, 4)], predicate=T.Broadcast(T.bool(False), 4)), predicate=T.Broadcast(T.bool(False), 4))
    T.evaluate(A.data)
    T.evaluate(T.call_extern("int32", "memset_f32", B.data, 0, 65536))
    B[0, 0:4] = A.vload([1, T.Ramp(0, 1, 4)])
