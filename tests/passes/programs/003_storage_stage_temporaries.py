# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T1 = T.alloc_buffer((64,), "float32")
    T2 = T.alloc_buffer((64,), "float32")
    T3 = T.alloc_buffer((64,), "float32")
    T4 = T.alloc_buffer((64,), "float32")
    for io in range(16):
        for ii in T.vectorized(4):
            T1[io * 4 + ii] = A[io * 4 + ii] + T.float32(1.0)
    for io in range(16):
        for ii in T.vectorized(4):
            T2[io * 4 + ii] = T1[io * 4 + ii] * T.float32(2.0)
    for i in range(64):
        T3[i] = T2[i] - T1[63 - i]
    for io in range(16):
        for ii in T.vectorized(4):
            T4[io * 4 + ii] = T3[io * 4 + ii] * T2[io * 4 + ii]
    for i in range(64):
        B[i] = T4[i] + T3[i]
