# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(1000):
        if i % 13 == 0:
            A[1] = A[1] + T.float32(1.0)
            T.continue_loop()
        if A[0] >= B[0]:
            T.break_loop()
    for i in range(100):
        if i == 7:
            continue
        if A[2] > T.float32(10.0):
            break
        A[2] = A[2] + T.float32(0.5)
