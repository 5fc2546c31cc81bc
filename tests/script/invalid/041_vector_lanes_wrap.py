# expect-error: 7:56: T.Broadcast lanes must be between 1 and 32767, got 65536
# from tvm.script import tirx as T
# 65,536 lanes once wrapped the 16-bit lanes field to 0 (a segfault in code generation); they are rejected as they are read.

@T.prim_func
def main(A: T.Buffer((65536,), "float32")):
    A[T.Ramp(0, 1, 65536)] = T.Broadcast(T.float32(1), 65536)
