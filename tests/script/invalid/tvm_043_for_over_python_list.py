# expect-error: 5:14: for loop iterates
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in [1, 2]:
        A[0] = T.float32(1)
