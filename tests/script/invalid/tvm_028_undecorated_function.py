# expect-error: 3:1: decorated
# from tvm.script import tirx as T
def main(A: T.Buffer((16,), "float32")):
    A[0] = T.float32(1)
