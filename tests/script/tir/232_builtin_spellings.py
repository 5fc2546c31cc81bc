# from tvm.script import tirx as T
# Python's getattr() and list() on TVMScript names and shapes, T.div (C division: truncating on
# integers, true division on floats), T.boolean and T.s_tir.cp_async_raw.legacy (TVM's name for the
# raw cp.async node).

shape = (4, 8)

@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), N: T.Buffer((4,), "int32"), flag: T.boolean):
    B = T.alloc_buffer(list(shape), "float32", scope="shared")
    for i in getattr(T, "serial")(4, dtype="int32"):
        N[i] = T.div(N[i], 3)
        A[i, 0] = T.div(A[i, 1], A[i, 2])
        if flag:
            T.evaluate(T.s_tir.cp_async_raw.legacy(B.data, i * 8, A.data, i * 8, 16, dtype="float32"))
