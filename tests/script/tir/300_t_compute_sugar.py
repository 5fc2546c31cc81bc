# from tvm.script import tirx as T
# kiln extension (issue 17 F3): T.compute expands at parse time into loops around one sblock,
# with reduction axes and T.init for reductions; the printed form is plain TVMScript.

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 4), "float32"), C: T.Buffer((16, 4), "float32"),
         M: T.Buffer((16,), "float32")):
    D = T.compute((16, 8), lambda i, k: A[i, k] * T.float32(0.5))
    T.compute(C, lambda i, j, k: D[i, k] * B[k, j], reduce=(8,), name="matmul")
    T.compute(M, lambda i, j: C[i, j], reduce=4, combiner="max")
