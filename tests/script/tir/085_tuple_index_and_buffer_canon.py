# from tvm.script import tirx as T
# A[(i, j)] is A[i, j] as in Python; scope="" is the global scope and elem_offset=T.int64(0) the
# default offset, so both print as the defaults.

@T.prim_func(s_tir=True)
def canon(A: T.Buffer((2, 2), "float32"), B: T.Buffer((2, 2), "float32")):
    C = T.sblock_alloc_buffer([2, 2], dtype="float32", scope="", elem_offset=T.int64(0))
    A[(0, 0)] = T.float32(2)
    C[(0, 1)] = A[(0, 0)] + B[(1, 1)]
    B[0, 0] = C[0, 1]
