# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), n: T.int32):
    half: T.let[T.int32] = n // 2
    scale: T.let[T.float32] = T.Cast("float32", half) * T.float32(0.25)
    for i in range(32):
        j: T.let[T.int32] = (i + half) % 32
        v: T.let[T.float32] = A[j] * scale
        B[i] = v + v
    flag: T.let[T.bool] = n > 4
    if flag:
        B[0] = T.float32(0.0)
