# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
    for i in range(16):
        x: T.int32
        steps: T.int32
        x = A[i]
        steps = 0
        while x > 1 and steps < 1000:
            if x % 2 == 0:
                x = x // 2
            else:
                x = x * 3 + 1
            steps = steps + 1
        B[i] = steps
    k: T.int32
    k = 0
    while k < 16:
        B[k] = B[k] + 1
        k = k + 1
