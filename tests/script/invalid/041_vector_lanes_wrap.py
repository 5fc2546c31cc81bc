# expect-error: 7:30: a vector of 65536 lanes is wider than
# from tvm.script import tirx as T
# 65,536 lanes wrap the 16-bit lanes field to 0 (a segfault in code generation).

@T.prim_func
def main(A: T.Buffer((65536,), "float32")):
    A[T.Ramp(0, 1, 65536)] = T.Broadcast(T.float32(1), 65536)
