# from tvm.script import tirx as T
# range(start, stop, 1): the unit step is the trivial step; it prints as range(start, stop).

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    for i in range(0, 8, 1):
        A[i] = T.float32(0.0)
