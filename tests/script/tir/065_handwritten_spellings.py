# from tvm.script import tirx as T
# Spellings found in hand-written kernels: node constructors, T.cast, limits, ceildiv, abs,
# break_loop/continue_loop, a positional thread tag, -> None, T.serial(unroll=...).

@T.prim_func
def main(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "float32"), C: T.Buffer((8,), "int32")) -> None:
    for i in T.serial(64, unroll=4):
        A[i] = T.Add(A[i], T.Mul(i, 2))
        B[i] = T.cast(T.abs(A[i] - 32), "float32")
    C[0] = T.ceildiv(A[3], 4)
    C[1] = T.max_value("int32")
    C[2] = T.Cast("int32", T.min_value("int8"))
    C[3] = T.Select(T.And(T.LT(A[0], A[1]), T.Not(T.EQ(A[2], 0))), 1, 0)
    for i in range(64):
        if A[i] > 100:
            T.break_loop()
        if i % 2 == 0:
            T.continue_loop()
        C[4] = C[4] + 1
    B[0] = T.infinity("float32")
    r: T.let = A[0] * 2
    C[5] = T.reinterpret(B[1], dtype="int32") + r
