# expect-error: 5:5: no initial value
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    x: T.float32[4] = 1
    A[0] = T.float32(1)
