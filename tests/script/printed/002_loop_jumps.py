# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16,), "int32")):
    for i in range(16):
        if i % 3 == 0:
            T.continue_loop()
        if A[i] < 0:
            T.break_loop()
        A[i] = A[i] * 2
    n: T.int32
    n = 0
    while n < 16:
        n = n + 1
        if A[n] == 7:
            T.break_loop()
